import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadReplay, parseAge, planPurge, runExportText } from '../../src/audit';
import { openStore, type Store } from '../../src/store';
import type { StepRecord } from '../../src/shared/run';
import { runCli, type CliResult } from '../support/cli';
import { EngineBench } from '../support/engine';
import { openRecordedShopsRun } from '../support/recorded-run';
import { changeOneByte, copyDatabase, readScreenshot, readStepJson, tamper, tempDir } from './support';

/**
 * Tamper evidence end to end: one real lab run (recorded once for the files that only read it), then copies of its database and export edited
 * the way someone with the files would, each checked by the real `verify` process. Independent
 * CLI processes run side by side to keep the file fast.
 */
let bench: EngineBench;
let store: Store;
let runId: string;
let steps: StepRecord[];
let dir: string;
let head: string;

/** The step whose JSON / whose screenshot the tests change. */
const JSON_STEP = 3;
const SHOT_STEP = 2;

beforeAll(async () => {
  bench = await new EngineBench().start();
  // A copy of its own of the run recorded once for every file that only reads it (test/support/recorded-run.ts).
  ({ store, runId, steps } = await openRecordedShopsRun(bench));
  head = (await store.getRun(runId))!.headHash!;
  dir = tempDir();
}, 300_000);

afterAll(async () => {
  store?.close();
  await bench?.stop().catch(() => undefined);
});

/** The step's pictures: before, after (once its actions ran), the full page at a gated step. Pictures are content-addressed: one step's after is often the next one's before. */
function picturesOf(s: StepRecord): string[] {
  return [s.screenshotHash, s.afterScreenshotHash, s.fullPageHash].filter((h): h is string => typeof h === 'string');
}

function firstStepShowing(hash: string): number {
  return steps.findIndex((s) => picturesOf(s).includes(hash));
}

describe('verify, as a real process, on edited copies of a real run', () => {
  let results: Record<string, CliResult>;
  let shotHash: string;
  let requestStep: number;

  beforeAll(async () => {
    expect(steps.length).toBeGreaterThan(JSON_STEP);
    const db = (name: string) => join(dir, `${name}.sqlite`);
    for (const name of ['json', 'png', 'purged', 'request']) copyDatabase(store.path, db(name));

    // A request the egress lock let through, made to read as another host, in the store and in the export.
    requestStep = steps.findIndex((s) => (s.requests ?? []).some((r) => r.outcome === 'sent' && r.method === 'POST'));
    expect(requestStep).toBeGreaterThanOrEqual(0);
    const sentHost = steps[requestStep]!.requests!.find((r) => r.method === 'POST')!.host;
    tamper(db('request'), 'UPDATE steps SET json = replace(json, ?, ?) WHERE run_id = ? AND idx = ?', `"host":"${sentHost}"`, '"host":"elsewhere.example"', runId, requestStep);

    // One byte of step 3's stored JSON (a letter of the page title), as an attacker would change it.
    const json = readStepJson(db('json'), runId, JSON_STEP);
    const at = json.indexOf('"title":"') + '"title":"'.length;
    tamper(db('json'), 'UPDATE steps SET json = ? WHERE run_id = ? AND idx = ?', changeOneByte(json, at), runId, JSON_STEP);

    // One byte of step 2's screenshot.
    shotHash = steps[SHOT_STEP]!.screenshotHash!;
    const png = readScreenshot(db('png'), shotHash);
    png.writeUInt8(png.readUInt8(png.length - 40) ^ 0x01, png.length - 40);
    tamper(db('png'), 'UPDATE screenshots SET png = ? WHERE sha256 = ?', png, shotHash);

    // The export, and two copies of it with one byte changed: a step's text, a screenshot's base64.
    const text = runExportText(await store.exportRun(runId));
    writeFileSync(join(dir, 'run.json'), text);
    const exp = JSON.parse(text) as { steps: StepRecord[]; screenshots: Record<string, string> };
    // Step 3's page title, found after its read id (the same page can be read twice, under one title).
    const readId = `"readId": ${JSON.stringify(exp.steps[JSON_STEP]!.observation.readId)}`;
    expect(text.indexOf(readId)).toBe(text.lastIndexOf(readId));
    const titleAt = text.indexOf('"title": "', text.indexOf(readId)) + '"title": "'.length;
    writeFileSync(join(dir, 'step-edited.json'), changeOneByte(text, titleAt));
    const b64 = exp.screenshots[shotHash]!;
    const b64At = text.indexOf(b64) + Math.floor(b64.length / 2);
    writeFileSync(join(dir, 'shot-edited.json'), changeOneByte(text, /[A-Za-z0-9]/.test(text[b64At]!) ? b64At : b64At + 1));
    const requestEdited = JSON.parse(text) as { steps: StepRecord[] };
    const post = requestEdited.steps[requestStep]!.requests!.find((r) => r.method === 'POST')!;
    post.count += 1;
    writeFileSync(join(dir, 'request-edited.json'), JSON.stringify(requestEdited, null, 2));

    // A loaded CI box runs these slowly; the default timeout would kill them mid-answer.
    const cli = (args: string[]) => runCli(args, { timeoutMs: 170_000 });
    const [jsonEdited, pngEdited, files, purge, requestEdited2] = await Promise.all([
      cli(['verify', runId, '--db', db('json')]),
      cli(['verify', runId, '--db', db('png')]),
      cli(['verify', join(dir, 'run.json'), join(dir, 'step-edited.json'), join(dir, 'shot-edited.json'), join(dir, 'request-edited.json')]),
      cli(['purge', '--older-than', '0m', '--db', db('purged')]),
      cli(['verify', runId, '--db', db('request')]),
    ]);
    // The purged copy is the untouched run too: it must still answer intact, with the recorded head.
    const afterPurge = await cli(['verify', runId, '--db', db('purged')]);
    results = { jsonEdited: jsonEdited!, pngEdited: pngEdited!, files: files!, purge: purge!, afterPurge, requestEdited: requestEdited2! };
  }, 400_000);

  it('one byte of a stored step: exit 1, naming that step', () => {
    const r = results.jsonEdited!;
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^broken at step ${JSON_STEP}: its content does not match its chain hash`));
  });

  it('a request the egress lock recorded, edited in the store or in an export: exit 1, naming the step’s requests', () => {
    const r = results.requestEdited!;
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^broken at step ${requestStep}: its recorded requests .* do not match the sha256 the step keeps of them .*\\[field: steps\\[${requestStep}\\]\\.requests\\]`));
    expect(results.files!.stdout).toMatch(new RegExp(`request-edited\\.json: broken at step ${requestStep}: its recorded requests .*\\[field: steps\\[${requestStep}\\]\\.requests\\]`));
  });

  it('one byte of a screenshot: exit 1, naming the first step that shows it', () => {
    const r = results.pngEdited!;
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^broken at step ${firstStepShowing(shotHash)}: its (screenshot|after picture|full-page picture) bytes do not match their hash`));
  });

  it('export files: the untouched one is intact; one byte changed in a step or a screenshot names the step', () => {
    const r = results.files!;
    expect(r.code, r.stderr).toBe(1);
    const lines = r.stdout.split('\n');
    expect(lines.find((l) => l.startsWith(`${join(dir, 'run.json')}: intact`))).toMatch(new RegExp(`: intact \\(${steps.length} steps, \\d+ audit events, head ${head}\\)$`));
    expect(r.stdout).toMatch(new RegExp(`step-edited\\.json: broken at step ${JSON_STEP}: its content does not match its chain hash`));
    expect(r.stdout).toMatch(new RegExp(`shot-edited\\.json: broken at step ${firstStepShowing(shotHash)}: its (screenshot|after picture|full-page picture) bytes do not match`));
  });

  it('after purge, verify still passes, the screenshots counted as purged by a chained purge record', () => {
    expect(results.purge!.code, results.purge!.stderr).toBe(0);
    const shots = new Set(steps.flatMap(picturesOf)).size;
    expect(results.purge!.stdout).toMatch(new RegExp(`^purged runs that ended before .*: ${shots} screenshots dropped \\(.*\\), 0 model payloads deleted; 1 run purged for the first time\\.`));
    const r = results.afterPurge!;
    expect(r.code, r.stderr).toBe(0);
    // The purge is one more chained record, so the head moves past the one kept before it.
    expect(r.stdout.split('\n')[0]).toMatch(new RegExp(`^intact \\(${steps.length} steps, \\d+ audit events, head [0-9a-f]{64}\\)$`));
    expect(r.stdout.split('\n')[0]).not.toContain(head);
    expect(r.stdout).toContain(`0 screenshots checked against their hashes, ${shots} purged by retention (named by a chained purge record)`);
  });

  it('the replay of an edited run marks the broken step and what follows; a purged run shows screenshots as purged', async () => {
    const edited = openStore(join(dir, 'json.sqlite'));
    const replay = await loadReplay(edited, runId);
    edited.close();
    expect(replay.verify).toMatchObject({ ok: false, brokenStep: JSON_STEP });
    expect(replay.steps.map((s) => s.integrity)).toEqual(steps.map((s) => (s.index < JSON_STEP ? 'verified' : s.index === JSON_STEP ? 'broken' : 'unverified')));

    const purged = openStore(join(dir, 'purged.sqlite'));
    const after = await loadReplay(purged, runId);
    purged.close();
    expect(after.verify.ok).toBe(true);
    expect(after.steps.every((s) => s.kind === 'step' && s.screenshot?.state === 'purged')).toBe(true);
  });
});

describe('retention', () => {
  it('parses ages in days, hours and minutes', () => {
    expect(parseAge('90d')).toEqual({ ms: 90 * 86_400_000, text: '90 days' });
    expect(parseAge('1h')).toEqual({ ms: 3_600_000, text: '1 hour' });
    expect(parseAge('30m')?.ms).toBe(1_800_000);
    for (const bad of ['90', 'd', '-1d', '1.5d', '2w', '90 days', '']) expect(parseAge(bad)).toBeNull();
  });

  it('a dry run counts exactly what the purge then drops, and changes nothing', async () => {
    const path = join(dir, 'dry.sqlite');
    copyDatabase(store.path, path);
    const copy = openStore(path);
    try {
      const now = new Date();
      expect(await planPurge(copy, { olderThanMs: parseAge('90d')!.ms, now })).toMatchObject({ runs: 0, screenshots: 0, modelPayloads: 0 });
      const plan = await planPurge(copy, { olderThanMs: 0, now });
      expect(plan.runIds).toEqual([runId]);
      expect(await copy.verifyRun(runId)).toMatchObject({ ok: true, purgedScreenshots: 0 });
      const done = await copy.purge({ olderThanMs: 0, now });
      expect({ ...plan, runIds: undefined }).toEqual({ ...done, runIds: undefined });
      expect(await copy.verifyRun(runId)).toMatchObject({ ok: true, checkedScreenshots: 0, purgedScreenshots: done.screenshots });
    } finally {
      copy.close();
    }
  });
});
