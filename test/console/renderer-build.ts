import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './support';

const RENDERER_INDEX = join(REPO, 'out/renderer/index.html');
const SOURCES = [join(REPO, 'src/renderer'), join(REPO, 'src/shared'), join(REPO, 'electron.vite.config.ts')];

/** Builds the renderer (electron-vite build) only when out/renderer is missing or older than its sources. */
export function ensureRendererBuilt(): void {
  if (existsSync(RENDERER_INDEX) && statSync(RENDERER_INDEX).mtimeMs >= newestSource()) return;
  execFileSync(process.execPath, [join(REPO, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: REPO, stdio: 'pipe', timeout: 180_000 });
  if (!existsSync(RENDERER_INDEX)) throw new Error(`electron-vite build did not write ${RENDERER_INDEX}`);
}

function newestSource(): number {
  let newest = 0;
  const walk = (path: string) => {
    const stat = statSync(path);
    if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
    else newest = Math.max(newest, stat.mtimeMs);
  };
  for (const source of SOURCES) if (existsSync(source)) walk(source);
  return newest;
}
