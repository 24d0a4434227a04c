#!/usr/bin/env node
// `npm test` once the CLI is built: the static checks and the three vitest tiers, then the ten
// slowest test files.
//
// The static checks (scripts/static-checks.mjs: typecheck, lint, dead exports) start beside the
// vitest run at the lowest useful priority (nice 15) instead of taking 40 s of the machine before
// it: the tests leave CPU idle while their pages load and settle, and the checks take that. Their
// output is printed whole once the main run ends. The two office tests that must have the machine
// to themselves (PORTAL_DESK_TEST_SET=alone) start only after the checks are done. The exit code is
// the first failure's: the checks', then the main run's, then the alone set's (0 when all pass).
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join, resolve } from 'node:path';
import process from 'node:process';
import { Buffer } from 'node:buffer';

const root = resolve(import.meta.dirname, '..');
const vitest = join(root, 'node_modules', '.bin', 'vitest');
const CHECKS_NICE = 15;

function exitCodeOf(child) {
  return new Promise((done) => {
    child.on('error', (err) => {
      console.error(`${err.message}`);
      done(1);
    });
    child.on('close', (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

function startChecks() {
  const child = spawn(process.execPath, [join(root, 'scripts', 'static-checks.mjs')], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    // The checks' own children (npm, tsc, eslint) inherit it: they start after this line runs.
    setPriority(child.pid, CHECKS_NICE);
  } catch {
    // A system that refuses a lower priority still runs the checks, only not out of the tests' way.
  }
  const out = [];
  child.stdout.on('data', (chunk) => out.push(chunk));
  child.stderr.on('data', (chunk) => out.push(chunk));
  return exitCodeOf(child).then((code) => ({ code, text: Buffer.concat(out).toString('utf8').trimEnd() }));
}

function runVitest(env = {}) {
  return exitCodeOf(spawn(vitest, ['run', '--configLoader', 'runner'], { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } }));
}

rmSync(join(root, '.vitest', 'times'), { recursive: true, force: true });
const checks = startChecks();
const main = await runVitest();
const checked = await checks;
process.stdout.write(`\nThe static checks (run beside the tests at nice ${CHECKS_NICE}):\n${checked.text}\n`);
const alone = await runVitest({ PORTAL_DESK_TEST_SET: 'alone' });
const times = await exitCodeOf(spawn(process.execPath, [join(root, 'scripts', 'test-times.mjs')], { cwd: root, stdio: 'inherit' }));
process.exit([checked.code, main, alone, times].find((code) => code !== 0) ?? 0);
