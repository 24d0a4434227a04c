// `npm run checks`: the static checks `npm test` runs before the tests (typecheck, lint, dead
// exports), two at a time: each is one single-threaded process, so on CI's two cores two side by
// side take the time of the longest pair instead of the sum. Each one's output is printed whole
// when it ends, with its time; the exit code is the first failure's (0 when all pass).
import { spawn } from 'node:child_process';
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { performance } from 'node:perf_hooks';

const CHECKS = ['typecheck', 'lint', 'deadcode']; // longest first, so the last one pairs with a shorter one
const AT_ONCE = 2;

function run(script) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => out.push(chunk));
    child.on('error', (err) => out.push(Buffer.from(`${err.message}\n`)));
    child.on('close', (code, signal) => {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const text = Buffer.concat(out).toString('utf8').trimEnd();
      const status = code === 0 ? 'passed' : `FAILED (${signal ?? `exit ${code}`})`;
      process.stdout.write(`\n== npm run ${script}: ${status} in ${seconds} s\n${text ? `${text}\n` : ''}`);
      resolve(code ?? 1);
    });
  });
}

const queue = [...CHECKS];
const codes = [];
await Promise.all(
  Array.from({ length: AT_ONCE }, async () => {
    for (let script = queue.shift(); script; script = queue.shift()) codes.push(await run(script));
  }),
);
process.exit(codes.find((code) => code !== 0) ?? 0);
