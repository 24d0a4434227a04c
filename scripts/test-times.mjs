#!/usr/bin/env node
// Prints the ten slowest test files of the last vitest run(s) and the total, from vitest's JSON
// reports (.vitest/times/*.json, written by every run: vitest.config.mts). `npm test`, `npm run
// test:full` and .ci/run call it at the end, whether the tests passed or not.
//   node scripts/test-times.mjs [report.json ...]   (default: every report in .vitest/times/)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const dir = join(root, '.vitest/times');
const args = process.argv.slice(2);
const reports = args.length ? args : existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => join(dir, f)) : [];
if (reports.length === 0) {
  console.error('test-times: no vitest JSON report in .vitest/times/ (did vitest run?)');
  process.exit(0);
}

const files = [];
let wall = 0;
for (const path of reports) {
  let report;
  try {
    report = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    console.error(`test-times: ${relative(root, path)} is not a vitest JSON report (${err.message})`);
    continue;
  }
  const results = Array.isArray(report.testResults) ? report.testResults : [];
  const ends = results.map((r) => Number(r.endTime)).filter(Number.isFinite);
  if (ends.length && Number.isFinite(report.startTime)) wall += Math.max(...ends) - report.startTime;
  for (const r of results) {
    const ms = Number(r.endTime) - Number(r.startTime);
    const tests = Array.isArray(r.assertionResults) ? r.assertionResults.length : 0;
    files.push({ file: relative(root, r.name), ms: Number.isFinite(ms) ? ms : 0, status: r.status, tests, run: relative(dir, path) });
  }
}

const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
const min = (ms) => `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
files.sort((a, b) => b.ms - a.ms);
const width = Math.max(...files.slice(0, 10).map((f) => f.file.length), 4);
console.log(`\nThe ten slowest test files (${reports.map((p) => relative(root, p)).join(', ')}):`);
for (const f of files.slice(0, 10)) console.log(`  ${s(f.ms).padStart(9)}  ${f.file.padEnd(width)}  ${f.tests} tests${f.status === 'passed' ? '' : `, ${f.status}`}`);
const sum = files.reduce((n, f) => n + f.ms, 0);
const failed = files.filter((f) => f.status !== 'passed').length;
console.log(`Total: ${files.length} files, ${files.reduce((n, f) => n + f.tests, 0)} tests${failed ? `, ${failed} files not passed` : ''}; ${min(wall)} of vitest wall time (${min(sum)} summed over files)\n`);
