import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

/**
 * Three bundles, built without the Electron binary:
 * - main (`out/main/index.js`, CommonJS): the composition root, `src/main/index.ts`, which has no
 *   demo portals; `PORTAL_DESK_DEMO=1` builds the demo shell instead (`lab/demo/shell.ts`: the same
 *   shell with the portal lab filled in). Runtime dependencies
 *   (better-sqlite3, playwright-core, zod, ws, the Anthropic SDK) stay external and are loaded
 *   from node_modules, so better-sqlite3 must be rebuilt for Electron's ABI when packaging
 *   (docs/packaging.md).
 * - preload (`out/preload/index.js`, CommonJS): a sandboxed preload cannot `require` anything
 *   but `electron`, so everything it uses is bundled into it (externalizeDeps off) and the
 *   output format is forced to CommonJS.
 * - renderer (`out/renderer`): the React console, the same build the browser console serves.
 *   `base: './'` keeps its asset URLs relative, so they resolve under `portal-desk://console/`.
 */
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      target: 'node22',
      sourcemap: true,
      rollupOptions: {
        input: { index: resolve(__dirname, process.env.PORTAL_DESK_DEMO === '1' ? 'lab/demo/shell.ts' : 'src/main/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].js' },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      externalizeDeps: false,
      sourcemap: false,
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/preload/index.ts') },
        external: ['electron'],
        output: { format: 'cjs', entryFileNames: '[name].js' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    base: './',
    plugins: [react()],
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      rollupOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } },
    },
  },
});
