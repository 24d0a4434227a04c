import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bindLabProfile } from '../../lab';
import { labAccount } from '../../lab/accounts';
import { LabCredentials } from '../../lab/demo/lab-portals';
import { loadPortalProfile } from '../../src/agent/case/portal-profiles';
import { buildRunReport, keepTrace, traceKeeperIn } from '../../src/audit';
import { sha256Hex } from '../../src/base/canonical-json';
import { verifyCommand } from '../../src/cli/commands/verify';
import { executeRun } from '../../src/service/run-service';
import { TraceRecord } from '../../src/shared/trace';
import { openStore, type Store } from '../../src/store';
import { REPO } from '../support/cli';
import { EngineBench, RecordingApprovals, ScriptedInputs } from '../support/engine';
import { copyDatabase, openReport, tamper, tempDir } from './support';

/**
 * `run --trace`: a real lab run in Chromium with a Playwright trace, started once code has signed
 * in, scanned for the run's secrets, kept 0600 with its sha256 in the chained outcome, shown in
 * the report, and opened with the trace tool playwright-core ships. A trace in which the password
 * was typed is refused.
 */
const CASE = 'shops-renewal-anand-bakery.json';
const PLAYWRIGHT_CLI = join(REPO, 'node_modules/playwright-core/cli.js');
const run = promisify(execFile);

let bench: EngineBench;
let store: Store;
let dir: string;
let runId: string;
let password: string;

beforeAll(async () => {
  bench = await new EngineBench().start();
  dir = tempDir('pd-trace-');
  store = openStore(join(dir, 'runs.sqlite'));
  const caseFile = bench.caseFile(CASE);
  password = labAccount(caseFile.clientId).password;
  const profile = bindLabProfile(loadPortalProfile(caseFile.portal), bench.lab.port);
  bench.lab.configure(caseFile.clientId, {});
  const finished = await executeRun(
    { store, browser: bench.browser, approvals: new RecordingApprovals('approve'), inputs: new ScriptedInputs(() => null), credentials: new LabCredentials(), traces: traceKeeperIn(dir) },
    { caseFile, profile, planner: 'rules', approveMode: 'ask', trace: true },
  );
  expect(finished.status, finished.reason).toBe('done');
  runId = finished.runId;
}, 300_000);

afterAll(async () => {
  store?.close();
  await bench?.stop();
});

async function traceOf(id: string): Promise<TraceRecord> {
  const outcome = (await store.auditTrail(id)).findLast((e) => e.type === 'outcome')!;
  return TraceRecord.parse((outcome.set!.outcome as { trace: unknown }).trace);
}

describe('run --trace on a real lab run', () => {
  it('keeps the trace 0600 in a 0700 traces/ folder, its sha256 in the chained outcome record, and the run verifies', async () => {
    const trace = await traceOf(runId);
    if (!trace.kept) throw new Error(`trace not kept: ${trace.reason}`);
    expect(trace.file).toBe(`traces/${runId}.zip`);
    const path = join(dir, trace.file);
    const bytes = readFileSync(path);
    expect(sha256Hex(bytes)).toBe(trace.sha256);
    expect(trace.bytes).toBe(bytes.length);
    expect(trace.files).toBeGreaterThan(3);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'traces')).mode & 0o777).toBe(0o700);
    expect(await store.verifyRun(runId)).toMatchObject({ ok: true });
  });

  it('an edit of the trace’s sha256 in the chained outcome record is caught by verify', async () => {
    const copy = join(tempDir('pd-trace-tamper-'), 'runs.sqlite');
    copyDatabase(store.path, copy);
    tamper(copy, 'DROP TRIGGER run_events_no_update');
    tamper(copy, "UPDATE run_events SET set_json = replace(set_json, ?, ?) WHERE run_id = ? AND type = 'outcome'", (await traceOf(runId) as { sha256: string }).sha256, sha256Hex('another trace'), runId);
    const edited = openStore(copy);
    try {
      const v = await edited.verifyRun(runId);
      expect(v.ok).toBe(false);
      expect(v.ok ? '' : v.problem).toMatch(/\(outcome\): its content does not match its chain hash/);
    } finally {
      edited.close();
    }
  });

  it('verify hashes the trace and the receipt kept beside the store: a swapped trace or an edited receipt fails, naming the file', async () => {
    const copyDir = tempDir('pd-trace-files-');
    const db = join(copyDir, 'runs.sqlite');
    copyDatabase(store.path, db);
    const trace = await traceOf(runId);
    if (!trace.kept) throw new Error(`trace not kept: ${trace.reason}`);
    const receipts = readdirSync(join(dir, 'receipts'));
    expect(receipts.length).toBeGreaterThan(0);
    mkdirSync(join(copyDir, 'traces'));
    mkdirSync(join(copyDir, 'receipts'));
    writeFileSync(join(copyDir, trace.file), readFileSync(join(dir, trace.file)));
    for (const r of receipts) writeFileSync(join(copyDir, 'receipts', r), readFileSync(join(dir, 'receipts', r)));
    const out: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line: unknown) => void out.push(String(line)));
    try {
      expect(await verifyCommand([runId, '--db', db])).toBe(0);
      expect(out.join('\n')).toMatch(/trace traces\/run-[^ ]+\.zip: its bytes match the sha256 in the outcome record/);
      expect(out.join('\n')).toMatch(/receipt receipts\/[0-9a-f]{64}\.\w+: its bytes match/);

      // Another trace put in its place (here: the same zip with one byte more) under the same name.
      writeFileSync(join(copyDir, trace.file), Buffer.concat([readFileSync(join(dir, trace.file)), Buffer.from([0])]));
      out.length = 0;
      expect(await verifyCommand([runId, '--db', db, '--json'])).toBe(1);
      expect(JSON.parse(out.join('\n'))).toMatchObject({ ok: false, field: 'traceFile', problem: expect.stringMatching(/the trace file was changed or replaced/) });
      writeFileSync(join(copyDir, trace.file), readFileSync(join(dir, trace.file)));

      // The receipt the report names, edited on disk under its own sha256 name.
      const name = receipts.find((r) => /^[0-9a-f]{64}\./.test(r))!;
      writeFileSync(join(copyDir, 'receipts', name), readFileSync(join(dir, 'receipts', name), 'utf8').replace(/SR-\d{4}-\d+/, 'SR-2026-000000') + ' ');
      out.length = 0;
      expect(await verifyCommand([runId, '--db', db])).toBe(1);
      expect(out[0]).toMatch(/^broken: the receipt receipts\/[0-9a-f]{64}\.\w+ hashes to [0-9a-f]{12}, not the sha256 the outcome record names.*\[field: receiptFile\]$/);
      expect(out[1]).toMatch(/a file kept beside the store is not the one the chain names/);
    } finally {
      log.mockRestore();
    }
  });

  it('opens with the trace tool playwright-core ships: the run’s actions after sign-in are there, the sign-in and the password are not', async () => {
    const trace = await traceOf(runId);
    if (!trace.kept) throw new Error(trace.reason);
    const cwd = tempDir('pd-trace-open-');
    const opts = { cwd, timeout: 120_000, maxBuffer: 32 * 1024 * 1024 };
    await run(process.execPath, [PLAYWRIGHT_CLI, 'trace', 'open', join(dir, trace.file)], opts);
    const actions = (await run(process.execPath, [PLAYWRIGHT_CLI, 'trace', 'actions'], opts)).stdout;
    const requests = (await run(process.execPath, [PLAYWRIGHT_CLI, 'trace', 'requests'], opts)).stdout;
    expect(actions).toMatch(/fill|click|check|select/i);
    // The form's own posts are in the trace; the sign-in post is not (tracing began once code had signed in).
    expect(requests).toMatch(/POST/);
    expect(requests).not.toMatch(/sign-in/);
    // Every file the tool extracted, searched for the password as typed and as a form would send it.
    const files: string[] = [];
    const walk = (d: string): void => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(d, e.name));
        else files.push(join(d, e.name));
      }
    };
    walk(cwd);
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) {
      const text = readFileSync(f).toString('latin1');
      for (const form of [password, encodeURIComponent(password)]) expect(text.includes(form), f).toBe(false);
    }
    for (const out of [actions, requests]) expect(out).not.toContain(password);
  });

  it('the report names the trace, links it beside the store, with its sha256 and how to open it, and no local path', async () => {
    const trace = await traceOf(runId);
    if (!trace.kept) throw new Error(trace.reason);
    const { html } = await buildRunReport(store, runId);
    expect(html).not.toContain(dir);
    const file = join(dir, 'reports', `${runId}.html`);
    mkdirSync(join(dir, 'reports'), { recursive: true });
    writeFileSync(file, html);
    const report = await openReport(bench.browser, file);
    try {
      const line = report.page.locator('#outcome p.trace');
      expect((await line.innerText()).replace(/\s+/g, ' ')).toMatch(new RegExp(`^Playwright trace: traces/${runId}\\.zip beside the run store .*sha256 ${trace.sha256}.*npx playwright-core show-trace traces/${runId}\\.zip$`));
      // The link, from the store's reports/ folder, reaches the kept trace.
      const href = await line.locator('a').getAttribute('href');
      expect(existsSync(join(dir, 'reports', href!))).toBe(true);
      await line.scrollIntoViewIfNeeded();
      mkdirSync(join(REPO, 'test-artifacts/report'), { recursive: true });
      await report.page.screenshot({ path: join(REPO, 'test-artifacts/report/lab-run-trace.png') });
    } finally {
      await report.close();
    }
  });
});

describe('a trace that holds the password', () => {
  it('is refused by the scan and not kept; the same trace is kept when the password is not the run’s', async () => {
    const context = await bench.browser.newContext();
    const page = await context.newPage();
    await page.setContent('<form action="/sign-in" method="post"><label>Password <input type="password" name="password"></label><button>Sign in</button></form>');
    await context.tracing.start({ screenshots: true, snapshots: true });
    await page.getByLabel('Password').fill(password);
    const zip = join(tempDir('pd-trace-planted-'), 'trace.zip');
    await context.tracing.stop({ path: zip });
    await context.close();

    const folder = tempDir('pd-trace-keep-');
    const refused = keepTrace(zip, folder, 'run-planted', [password]);
    expect(refused).toEqual({ kept: false, reason: expect.stringMatching(/^the trace held a secret of the run .* in its .*; it was not kept$/) });
    expect(JSON.stringify(refused)).not.toContain(password);
    expect(existsSync(join(folder, 'traces', 'run-planted.zip'))).toBe(false);

    // Control: the scan, not the zip, refused it.
    expect(keepTrace(zip, folder, 'run-planted', ['Another!secret-9'])).toMatchObject({ kept: true, file: 'traces/run-planted.zip' });
  });

  it('a file that is not a whole zip is dropped, unread, with the reason', () => {
    const folder = tempDir('pd-trace-bad-');
    const bad = join(folder, 'bad.zip');
    writeFileSync(bad, Buffer.from('PK\u0003\u0004 not really a zip'));
    expect(keepTrace(bad, folder, 'run-bad', [password])).toEqual({ kept: false, reason: expect.stringMatching(/^the trace could not be read whole \(no zip directory at its end\)/) });
  });
});
