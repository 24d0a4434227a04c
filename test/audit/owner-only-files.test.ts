import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appendHead, runExportText, saveRunReport, writeOwnerOnly } from '../../src/audit';
import { sha256Hex } from '../../src/base/canonical-json';
import { receiptFolder, receiptsHome } from '../../src/service/receipt-folder';
import { openStore } from '../../src/store';
import { buildStep, newRun, png } from '../store/fixtures';
import { tempDir } from './support';

/**
 * Every file the product writes about a run is readable by its owner only: the store (and its
 * WAL), the console's saved report, exports, the head log. The console's "Export report" is
 * written by the console's process (saveRunReport), not downloaded by the browser.
 */
const opened: { close(): void }[] = [];
afterEach(() => {
  while (opened.length) opened.pop()?.close();
});

const modeOf = (path: string) => statSync(path).mode & 0o777;

async function finishedRun(dir: string) {
  const store = openStore(join(dir, 'runs.sqlite'));
  opened.push(store);
  const id = 'run-2026-03-02-o1';
  await store.createRun(newRun({ id }));
  const { step, png: shot } = buildStep(id, 0);
  step.afterScreenshotHash = sha256Hex(png(50));
  await store.recordStep(step, shot, { after: png(50) });
  await store.updateRun(id, { status: 'done', reason: 'Submitted', applicationNumber: 'SR-2026-1', endedAt: '2026-03-02T09:16:00.000Z' });
  return { store, id };
}

describe('owner-only files', () => {
  it('the console saves the report 0600 in a 0700 folder beside the store, and says where', async () => {
    const dir = tempDir();
    const { store, id } = await finishedRun(dir);
    const saved = await saveRunReport(store, id, join(dir, 'reports'));
    expect(saved.path).toBe(join(dir, 'reports', `${id}.html`));
    expect(modeOf(join(dir, 'reports'))).toBe(0o700);
    expect(modeOf(saved.path)).toBe(0o600);
    const html = readFileSync(saved.path, 'utf8');
    expect(saved.bytes).toBe(Buffer.byteLength(html));
    expect(html).toContain('SR-2026-1');
    // The after picture is in the report beside the before one.
    expect(html).toContain('After: once the actions ran and the page settled');
    // The store and its write-ahead log are owner-only too.
    for (const f of ['runs.sqlite', 'runs.sqlite-wal']) if (existsSync(join(dir, f))) expect(modeOf(join(dir, f)), f).toBe(0o600);
  });

  it('saving over a report someone made world-readable leaves a 0600 file', async () => {
    const dir = tempDir();
    const { store, id } = await finishedRun(dir);
    const target = join(dir, 'reports');
    const first = await saveRunReport(store, id, target);
    chmodSync(first.path, 0o644);
    const again = await saveRunReport(store, id, target);
    expect(modeOf(again.path)).toBe(0o600);
  });

  it('exports and the head log are written 0600', async () => {
    const dir = tempDir();
    const { store, id } = await finishedRun(dir);
    const file = join(dir, 'run.json');
    writeFileSync(file, 'old', { mode: 0o644 });
    writeOwnerOnly(file, runExportText(await store.exportRun(id)));
    expect(modeOf(file)).toBe(0o600);
    const log = join(dir, 'heads.log');
    appendHead(log, { keptAt: '2026-03-02T09:17:00.000Z', runId: id, records: 4, head: 'a'.repeat(64), status: 'done' });
    expect(modeOf(log)).toBe(0o600);
  });

  it('receipts are 0600 in a 0700 folder, also when the folder and a receipt of the same hash were already there, world-readable', async () => {
    const dir = tempDir();
    const bytes = Buffer.from('<html><body>Application SHP-2026-000123 received</body></html>');
    const sha256 = sha256Hex(bytes);
    const receipt = { bytes, contentType: 'text/html; charset=utf-8', url: 'http://shops.portal.example/done', kind: 'confirmation_page' as const, sha256, runId: 'run-1', applicationNumber: 'SHP-2026-000123' };
    mkdirSync(join(dir, 'receipts'), { mode: 0o755 });
    chmodSync(join(dir, 'receipts'), 0o755);
    const old = join(dir, 'receipts', `${sha256}.html`);
    writeFileSync(old, 'an older copy', { mode: 0o644 });
    chmodSync(old, 0o644);
    const kept = await receiptFolder(dir).keep(receipt);
    expect(kept).toBe(old);
    expect(modeOf(join(dir, 'receipts'))).toBe(0o700);
    expect(modeOf(kept)).toBe(0o600);
    expect(readFileSync(kept)).toEqual(bytes);
    // A link planted where the receipt goes is replaced, not written through.
    const elsewhere = join(dir, 'elsewhere.txt');
    writeFileSync(elsewhere, 'not a receipt', { mode: 0o644 });
    rmSync(kept);
    symlinkSync(elsewhere, kept);
    await receiptFolder(dir).keep(receipt);
    expect(lstatSync(kept).isSymbolicLink()).toBe(false);
    expect(modeOf(kept)).toBe(0o600);
    expect(readFileSync(elsewhere, 'utf8')).toBe('not a receipt');
    expect(modeOf(elsewhere)).toBe(0o644);
  });

  it('receipts go to the desk folder of the store, beside a SQLite file without one, and never beside a database address', () => {
    expect(receiptsHome({ kind: 'sqlite', path: '/srv/desk/runs.sqlite' })).toBe('/srv/desk');
    expect(receiptsHome({ kind: 'postgres', path: 'postgres://clerk@db.office.example/desk', localFolder: '/home/clerk/.portal-desk' })).toBe('/home/clerk/.portal-desk');
    // Before, this made a folder named 'postgres:/clerk@db.office.example' under the working folder.
    expect(() => receiptsHome({ kind: 'postgres', path: 'postgres://clerk@db.office.example/desk' })).toThrow(/without a folder on this desk for receipts/);
  });
});
