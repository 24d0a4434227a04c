#!/usr/bin/env node
// The headless entry point. TypeScript sources run through tsx so the CLI and the
// tests execute the very files that are type-checked.
'use strict';
const path = require('node:path');
require('tsx/cjs');
const { main } = require(path.join(__dirname, '..', 'src', 'cli', 'main.ts'));
main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => { console.error(`portal-desk: ${err instanceof Error ? err.message : String(err)}`); process.exitCode = 1; },
);
