/**
 * Child process for the crash test: records ~1 MB steps into one run as fast as it can, printing
 * `begin i` before each recordStep and `done i` once it has resolved, until it is killed.
 * Run with `node --import tsx`.
 * Usage: crash-writer.ts <db path | postgres:// address> <run id>
 */
import { crc32 } from 'node:zlib';
import { openPgStore, openStore } from '../../src/store';
import { buildStep, newRun, png } from './fixtures';

/** A valid PNG made unique by a tEXt chunk, so every step writes a new ~1 MB blob. */
function variant(base: Buffer, n: number): Buffer {
  const iend = base.subarray(base.length - 12);
  const body = Buffer.concat([Buffer.from('tEXt', 'ascii'), Buffer.from(`step\0${n}`, 'latin1')]);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length - 4);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([base.subarray(0, base.length - 12), len, body, crc, iend]);
}

async function main(): Promise<void> {
  const [path, runId] = process.argv.slice(2);
  if (!path || !runId) throw new Error('usage: crash-writer.ts <db path | postgres:// address> <run id>');
  const store = /^postgres(ql)?:\/\//.test(path) ? await openPgStore(path) : openStore(path);
  const existing = await store.getRun(runId);
  if (!existing) await store.createRun(newRun({ id: runId }));
  else await store.updateRun(runId, { status: 'running' });
  const base = png(7, 1000);
  for (let i = existing?.stepCount ?? 0; ; i++) {
    const shot = variant(base, i);
    const { step } = buildStep(runId, i, { screenshot: shot });
    process.stdout.write(`begin ${i}\n`);
    await store.recordStep(step, shot);
    process.stdout.write(`done ${i}\n`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
