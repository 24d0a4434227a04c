#!/usr/bin/env node
// The headless entry point. It runs the built CLI (out/cli, `npm run build:cli`) when that build is
// newer than every source it was made from; otherwise (a development checkout with edited sources)
// it runs the TypeScript sources through tsx, a development dependency, so nothing stale runs.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { setTimeout } = require('node:timers');

const ROOT = path.join(__dirname, '..');
const BUILT = path.join(ROOT, 'out', 'cli', 'main.mjs');

/** True when out/cli exists and no source it lists (out/cli/inputs.json) changed after it was built. */
function builtIsCurrent() {
  const built = fs.statSync(BUILT, { throwIfNoEntry: false });
  if (!built) return false;
  let inputs;
  try {
    inputs = JSON.parse(fs.readFileSync(path.join(ROOT, 'out', 'cli', 'inputs.json'), 'utf8'));
  } catch {
    return false;
  }
  // A source that is gone (an installed app ships no src) cannot be newer than the build.
  return inputs.every((file) => !(fs.statSync(path.join(ROOT, file), { throwIfNoEntry: false })?.mtimeMs > built.mtimeMs));
}

async function load() {
  // PORTAL_DESK_CLI=built runs out/cli even if sources changed since (the bench measures it so);
  // PORTAL_DESK_CLI=source runs the sources even if out/cli is current.
  const want = process.env.PORTAL_DESK_CLI;
  if (want === 'built' || (want !== 'source' && builtIsCurrent())) return import(pathToFileURL(BUILT).href);
  let tsx;
  try {
    tsx = await import('tsx/esm/api');
  } catch {
    throw new Error('out/cli is missing or older than src, and tsx (a development dependency) is not installed: run `npm run build:cli`, or `npm install` for development.');
  }
  // ES module hooks for the commands' dynamic import(), CommonJS hooks for what they require.
  tsx.register();
  require('tsx/cjs');
  const sources = await import(pathToFileURL(path.join(ROOT, 'src', 'cli', 'main.ts')).href);
  return sources.main ? sources : sources.default;
}

/** A desk (`worker`) that has stopped leaves even if a handle nobody closed would keep Node alive. */
const LEAVE_MS = 10_000;

load()
  .then(({ main }) => main(process.argv.slice(2)))
  .then(
    (code) => {
      process.exitCode = code;
      if (process.argv[2] === 'worker') {
        setTimeout(() => {
          console.error(`portal-desk worker: something still held the process ${LEAVE_MS / 1000} s after the desk stopped; leaving now`);
          process.exit(code);
        }, LEAVE_MS).unref();
      }
    },
    (err) => { console.error(`portal-desk: ${err instanceof Error ? err.message : String(err)}`); process.exitCode = 1; },
  );
