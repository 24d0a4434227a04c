// Lint keeps the layers honest (the VS Code habit): where a file sits decides what it may import.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const restrict = (patterns) => ({
  'no-restricted-imports': ['error', { patterns }],
});

const ELECTRON = { group: ['electron', 'electron/*'], message: 'Only src/main and src/preload may import Electron.' };
const REACT = { group: ['react', 'react-dom', 'react/*', 'react-dom/*'], message: 'Only src/renderer may import React.' };
const SQLITE = { group: ['better-sqlite3'], message: 'Only src/store may import better-sqlite3; the engine writes through RunRecorder.' };
const PLAYWRIGHT = { group: ['playwright-core', 'playwright-core/*'], message: 'This layer does not drive the browser.' };
const AGENT = { group: ['**/agent/**', '../agent', '../agent/*'], message: 'This layer may not import the run engine.' };
const STORE = { group: ['**/store/**', '../store', '../store/*'], message: 'This layer may not import the store.' };
const LAB = { group: ['**/lab/**', '../lab', '../lab/*'], message: 'This layer may not import the portal lab.' };
const MAIN = { group: ['**/main/**', '../main', '../main/*', '**/cli/**', '../cli', '../cli/*'], message: 'Composition roots are imported by nobody.' };
const SERVICE = { group: ['**/service/**', '../service', '../service/*'], message: 'The run service composes the layers; layers below it may not import it.' };
const RENDERER = { group: ['**/renderer/**', '../renderer', '../renderer/*'], message: 'The renderer is reached only through the console API.' };

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-artifacts/**', 'resources/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': 'off',
    },
  },
  { files: ['src/base/**'], rules: restrict([ELECTRON, REACT, SQLITE, PLAYWRIGHT, AGENT, STORE, LAB, MAIN, RENDERER, { group: ['zod', '**/shared/**'], message: 'src/base is the bottom layer: plain TypeScript over node builtins.' }]) },
  { files: ['src/shared/**'], rules: restrict([ELECTRON, REACT, SQLITE, PLAYWRIGHT, AGENT, STORE, LAB, MAIN, RENDERER, SERVICE, { group: ['node:*'], message: 'src/shared holds types and zod schemas only.' }]) },
  { files: ['src/agent/**'], rules: restrict([ELECTRON, REACT, SQLITE, STORE, LAB, MAIN, RENDERER, SERVICE]) },
  { files: ['src/store/**'], rules: restrict([ELECTRON, REACT, PLAYWRIGHT, AGENT, LAB, MAIN, RENDERER, SERVICE]) },
  { files: ['src/lab/**'], rules: restrict([ELECTRON, REACT, SQLITE, AGENT, STORE, MAIN, RENDERER, SERVICE]) },
  { files: ['src/vault/**'], rules: restrict([ELECTRON, REACT, SQLITE, PLAYWRIGHT, AGENT, STORE, LAB, MAIN, RENDERER, SERVICE]) },
  { files: ['src/eval/**', 'src/audit/**'], rules: restrict([ELECTRON, REACT, MAIN, RENDERER]) },
  { files: ['src/service/**'], rules: restrict([ELECTRON, REACT, MAIN, RENDERER]) },
  { files: ['src/console/**'], rules: restrict([ELECTRON, REACT, MAIN, RENDERER]) },
  { files: ['src/renderer/**'], rules: restrict([ELECTRON, SQLITE, PLAYWRIGHT, AGENT, STORE, LAB, MAIN, { group: ['node:*'], message: 'The renderer runs in a sandbox without Node.' }]) },
  { files: ['src/preload/**'], rules: restrict([REACT, SQLITE, PLAYWRIGHT, AGENT, STORE, LAB, RENDERER]) },
  { files: ['src/cli/**'], rules: restrict([ELECTRON, REACT, RENDERER]) },
  { files: ['src/bench/**'], rules: restrict([ELECTRON, REACT, SQLITE, MAIN, RENDERER, { group: ['**/console/**', '../console', '../console/*', '**/eval/**', '../eval', '../eval/*', '**/vault/**', '../vault', '../vault/*'], message: 'src/bench measures the engine, store, audit, lab and service; it does not use the console, the eval suites or the vault.' }]) },
  { files: ['bin/**/*.js'], languageOptions: { globals: { require: 'readonly', process: 'readonly', __dirname: 'readonly', console: 'readonly' } }, rules: { '@typescript-eslint/no-require-imports': 'off' } },
);
