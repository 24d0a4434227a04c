#!/usr/bin/env node
// Prints the ten slowest test files of the last vitest run(s) and the total, from the file times
// every run writes to .vitest/times/*.json (test/support/file-times-reporter.ts: a file's import,
// set-up, hooks and tests). `npm test` and `npm run test:full` call it at the end, whether the
// tests passed or not.
//   node scripts/test-times.mjs [times.json ...]   (default: every file in .vitest/times/)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const dir = join(root, '.vitest/times');
const args = process.argv.slice(2);
const reports = args.length ? args : existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => join(dir, f)) : [];
if (reports.length === 0) {
  console.error('test-times: no file times in .vitest/times/ (did vitest run?)');
  process.exit(0);
}

const files = [];
let wall = 0;
for (const path of reports) {
  let report;
  try {
    report = JSON.parse(readFileSync(path, 'utf8'));
    if (!Array.isArray(report.files) || !Number.isFinite(report.startedAt) || !Number.isFinite(report.endedAt)) throw new Error('no files, startedAt and endedAt');
  } catch (err) {
    console.error(`test-times: ${relative(root, path)} is not a file-times report (${err.message})`);
    continue;
  }
  wall += report.endedAt - report.startedAt;
  for (const f of report.files) files.push({ file: String(f.file), ms: Number(f.ms) || 0, tests: Number(f.tests) || 0, state: String(f.state) });
}

const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
const min = (ms) => `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
files.sort((a, b) => b.ms - a.ms);
const width = Math.max(...files.slice(0, 10).map((f) => f.file.length), 4);
console.log(`\nThe ten slowest test files (${reports.map((p) => relative(root, p)).join(', ')}; import, set-up, hooks and tests):`);
for (const f of files.slice(0, 10)) console.log(`  ${s(f.ms).padStart(9)}  ${f.file.padEnd(width)}  ${f.tests} tests${f.state === 'passed' ? '' : `, ${f.state}`}`);
const sum = files.reduce((n, f) => n + f.ms, 0);
const failed = files.filter((f) => f.state === 'failed').length;
console.log(`Total: ${files.length} files, ${files.reduce((n, f) => n + f.tests, 0)} tests${failed ? `, ${failed} files failed` : ''}; ${min(wall)} of vitest wall time (${min(sum)} summed over files)\n`);
