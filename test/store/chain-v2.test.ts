import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256Hex } from '../../src/base/canonical-json';
import { appendHead, checkHeads, evidenceFromExport, parseHeadLog, readHeadLog, renderReportHtml } from '../../src/audit';
import { eventChainJson, eventHash, stepHash, verifyExport, type ChainRecordRef, type RunExportV2, type Store, type VerifyResult } from '../../src/store';
import { eachStore, storeTarget, type Backend, type StoreTarget } from './backends';
import { buildStep, newRun, png, tempDir } from './fixtures';

/**
 * Chain format 2: every fact a report shows is chained. Each test edits one field of a finished
 * run, in the store and in an export, the way someone holding the files would, and expects
 * verification to fail naming that field.
 */
const RUN = 'run-2026-03-02-a1';
const RECEIPT = sha256Hex('the acknowledgement page');

/** A finished run: 4 steps (an approval at 2, a receipt at 3), a clerk answer saved into the case copy, then done. */
async function finishedRun(kind: Backend): Promise<{ path: StoreTarget; store: Store }> {
  const path = await storeTarget(kind);
  const store = await path.open();
  await store.createRun(newRun({ reason: 'Starting' }));
  for (let i = 0; i < 4; i++) {
    const events =
      i === 3 ? [{ type: 'receipt', message: `Acknowledgement of SR-2026-118842: confirmation page, sha256 ${RECEIPT}, 24 bytes, kept at /home/clerk/receipts/x.html`, at: '2026-03-02T09:15:30.000Z' }] : undefined;
    const { step, png: shot } = buildStep(RUN, i, { approval: i === 2 ? { decision: 'approve', by: 'Anna Byrne' } : undefined, events });
    await store.recordStep(step, shot);
    if (i === 1) {
      const run = await store.getRun(RUN);
      const stored = JSON.parse(run!.caseJson) as Record<string, unknown>;
      await store.updateRun(RUN, { caseJson: JSON.stringify({ ...stored, clerkValues: { town: 'Naas' } }) });
    }
  }
  await store.updateRun(RUN, { status: 'done', reason: 'Submitted', applicationNumber: 'SR-2026-118842', endedAt: '2026-03-02T09:16:00.000Z' });
  return { path, store };
}

/** What an attacker with the database does: drop the append-only guards, then write. */
async function tamper(target: StoreTarget, sql: string, ...params: unknown[]): Promise<void> {
  await target.dropGuards();
  await target.rows(sql, ...params);
}

function exportCopy(exp: RunExportV2): RunExportV2 {
  return JSON.parse(JSON.stringify(exp)) as RunExportV2;
}

function broken(v: VerifyResult): { field?: string; problem: string; where?: string } {
  if (v.ok) throw new Error(`expected a broken chain, got intact: ${JSON.stringify(v)}`);
  return v;
}

eachStore('chain format 2 in the store', (kind) => {
  it('verifies a finished run and says what it covers and cannot prove', async () => {
    const { store } = await finishedRun(kind);
    const v = await store.verifyRun(RUN);
    expect(v).toMatchObject({ ok: true, format: 2, steps: 4, checkedScreenshots: 4, purgedScreenshots: 0 });
    if (!v.ok) return;
    // created, caseJson update, status done, outcome
    expect(v.events).toBe(4);
    expect(v.records).toBe(8);
    expect(v.headHash).toBe((await store.getRun(RUN))!.headHash);
    expect(v.covers.join('\n')).toMatch(/case copy and portal profile/);
    expect(v.cannot).toMatch(/rewritten from its genesis/);
    const outcome = (await store.auditTrail(RUN)).at(-1)!;
    expect(outcome).toMatchObject({ type: 'outcome', set: { status: 'done', applicationNumber: 'SR-2026-118842', outcome: { steps: 4, receiptSha256: RECEIPT } } });
    expect(JSON.stringify(await store.auditTrail(RUN))).not.toContain('Naas');
  });

  const edits: [string, string, unknown[], RegExp][] = [
    ['the case copy', "UPDATE runs SET case_json = replace(case_json, 'Lakshmi Stores', 'Lakshmi Storez') WHERE id = ?", [RUN], /^caseJson$/],
    ['the status', "UPDATE runs SET status = 'failed' WHERE id = ?", [RUN], /^status$/],
    ['the reason', "UPDATE runs SET reason = 'Submitted (checked by hand)' WHERE id = ?", [RUN], /^reason$/],
    ['the application number', "UPDATE runs SET application_number = 'SR-2026-999999' WHERE id = ?", [RUN], /^applicationNumber$/],
    ['the end time', "UPDATE runs SET ended_at = '2026-03-02T10:00:00.000Z' WHERE id = ?", [RUN], /^endedAt$/],
    ['the model', "UPDATE runs SET model = 'claude-opus' WHERE id = ?", [RUN], /^model$/],
    ['the planner', "UPDATE runs SET planner = 'rules' WHERE id = ?", [RUN], /^planner$/],
    ['the input tokens', 'UPDATE runs SET input_tokens = input_tokens - 1000 WHERE id = ?', [RUN], /^usage\.inputTokens$/],
    ['the cost', 'UPDATE runs SET cost_usd = 0 WHERE id = ?', [RUN], /^usage\.costUsd$/],
    ['every audit event (deleted)', 'DELETE FROM run_events WHERE run_id = ?', [RUN], /^auditTrail\[0\]$/],
    ['one event reason', "UPDATE run_events SET reason = 'Approved by the manager' WHERE run_id = ? AND type = 'status'", [RUN], /^auditTrail\[6\]$/],
    ['the outcome record (deleted)', "DELETE FROM run_events WHERE run_id = ? AND type = 'outcome'", [RUN], /^outcome$/],
    ['the genesis (profile swapped)', "UPDATE runs SET genesis_json = replace(genesis_json, '\"caseJsonSha256\":\"', '\"caseJsonSha256\":\"0') WHERE id = ?", [RUN], /^auditTrail\[0\]$/],
    ['every screenshot (set to NULL, no purge)', 'UPDATE screenshots SET png = NULL', [], /^screenshots\./],
    ['an approval in a step', "UPDATE steps SET json = replace(json, 'Anna Byrne', 'Office Manager') WHERE run_id = ? AND idx = 2", [RUN], /^steps\[2\]$/],
  ];
  for (const [what, sql, params, field] of edits) {
    it(`names the field when ${what} is edited in the store`, async () => {
      const { path, store } = await finishedRun(kind);
      await tamper(path, sql, ...params);
      const v = broken(await store.verifyRun(RUN));
      expect(v.field, v.problem).toMatch(field);
    });
  }

  it('lets screenshots purged by retention verify, and only those', async () => {
    const { path, store } = await finishedRun(kind);
    await store.purge({ olderThanMs: 0, now: new Date('2026-09-01T00:00:00.000Z') });
    expect(await store.verifyRun(RUN)).toMatchObject({ ok: true, purgedScreenshots: 4, checkedScreenshots: 0 });
    const purge = (await store.auditTrail(RUN)).at(-1)!;
    expect(purge).toMatchObject({ type: 'purged', set: { screenshots: expect.any(Array) } });
    expect((purge.set!.screenshots as string[]).length).toBe(4);
    // Removing the purge record leaves screenshots gone with nothing in the chain to say why.
    await tamper(path, "DELETE FROM run_events WHERE run_id = ? AND type = 'purged'", RUN);
    await tamper(path, 'UPDATE runs SET record_count = record_count - 1, head_hash = (SELECT hash FROM run_events WHERE run_id = ? AND type = ?) WHERE id = ?', RUN, 'outcome', RUN);
    expect(broken(await store.verifyRun(RUN)).field).toMatch(/^screenshots\./);
  });

  it('refuses two audit events swapped in the trail (the report lists them in stored order), though each keeps its hash', async () => {
    const { path, store } = await finishedRun(kind);
    const trail = await store.auditTrail(RUN);
    const [status, outcome] = trail.slice(-2);
    expect([status!.type, outcome!.type]).toEqual(['status', 'outcome']);
    // seq is the trail's order; swapped, the outcome reads before the status change that caused it.
    await tamper(path, 'UPDATE run_events SET seq = -1 WHERE seq = ?', outcome!.seq);
    await tamper(path, 'UPDATE run_events SET seq = ? WHERE seq = ?', outcome!.seq, status!.seq);
    await tamper(path, 'UPDATE run_events SET seq = ? WHERE seq = -1', status!.seq);
    expect((await store.auditTrail(RUN)).slice(-2).map((e) => e.type)).toEqual(['outcome', 'status']);
    const v = broken(await store.verifyRun(RUN));
    expect(v.field, v.problem).toBe('auditTrail[6]');
    expect(v.problem).toMatch(/out of order/);
  });

  it('refuses a step recorded after the outcome, even with its hash recomputed', async () => {
    const { path, store } = await finishedRun(kind);
    const run = (await store.getRun(RUN))!;
    const { step } = buildStep(RUN, 4, { screenshot: null });
    const json = canonicalJson(step);
    const hash = stepHash(run.headHash!, json, null);
    await tamper(
      path,
      "INSERT INTO steps (run_id, idx, pos, json, observation_hash, hash, recorded_at) VALUES (?, 4, 8, ?, ?, ?, '2026-03-02T09:17:00.000Z')",
      RUN,
      json,
      step.observationHash,
      hash,
    );
    await tamper(path, 'UPDATE runs SET step_count = 5, record_count = 9, head_hash = ?, input_tokens = input_tokens + 4210, output_tokens = output_tokens + 188, cache_read_tokens = cache_read_tokens + 3900, cost_usd = cost_usd + 0.00421 WHERE id = ?', hash, RUN);
    const v = broken(await store.verifyRun(RUN));
    expect(v.problem).toMatch(/after the run's final outcome/);
    expect(v.field).toBe('steps[4]');
  });
});

eachStore('chain format 2 in exports', (kind) => {
  type Edit = [string, (e: RunExportV2) => void, RegExp];
  const edits: Edit[] = [
    ['the case copy', (e) => (e.run.caseJson = e.run.caseJson.replace('Lakshmi Stores', 'Lakshmi Storez')), /^caseJson$/],
    ['the status', (e) => (e.run.status = 'blocked'), /^status$/],
    ['the reason', (e) => (e.run.reason = 'Submitted by hand'), /^reason$/],
    ['the application number', (e) => (e.run.applicationNumber = 'SR-2026-000001'), /^applicationNumber$/],
    ['the output tokens', (e) => (e.run.usage.outputTokens = 1), /^usage\.outputTokens$/],
    ['the audit trail (emptied)', (e) => (e.auditTrail = []), /^auditTrail\[0\]$/],
    ['one event', (e) => (e.auditTrail[1]!.at = '2026-03-01T00:00:00.000Z'), /^auditTrail\[3\]$/],
    ['the screenshots (set to null)', (e) => { for (const k of Object.keys(e.screenshots)) e.screenshots[k] = null; }, /^screenshots\./],
    ['the genesis', (e) => ((e.chain.genesis as Record<string, unknown>).approveMode = 'all'), /^approveMode$/],
    ['an approval', (e) => (e.steps[2]!.actions[2]!.approval!.by = 'Office Manager'), /^steps\[2\]$/],
    // The report prints the chain's start as the file states it.
    ['the stated genesis hash', (e) => (e.chain.genesisHash = sha256Hex('another start')), /^chain\.genesisHash$/],
  ];
  for (const [what, edit, field] of edits) {
    it(`names the field when ${what} is edited in an export`, async () => {
      const { store } = await finishedRun(kind);
      const exp = exportCopy((await store.exportRun(RUN)) as RunExportV2);
      expect(verifyExport(exp)).toMatchObject({ ok: true, format: 2 });
      edit(exp);
      const v = broken(verifyExport(exp));
      expect(v.field, v.problem).toMatch(field);
    });
  }

  it("shows the verifier's own chain rule, not the rule text an export carries", async () => {
    const { store } = await finishedRun(kind);
    const exp = exportCopy((await store.exportRun(RUN)) as RunExportV2);
    const rule = exp.chain.definition;
    exp.chain.definition = 'Nothing is chained; every value is as the clerk typed it.';
    // seq is the store's row number, outside the chain: the report numbers the trail by chained place instead.
    exp.auditTrail.forEach((e, i) => (e.seq = 900 + i));
    const { replay } = evidenceFromExport(exp);
    expect(replay.verify.ok).toBe(true);
    expect(replay.chain.definition).toBe(rule);
    const report = renderReportHtml(replay);
    expect(report).toContain('genesisHash = sha256(canonicalJson({chain: 2');
    expect(report).not.toContain('Nothing is chained');
    const numbers = [...report.slice(report.indexOf('id="audit-trail"')).matchAll(/<tr><td class="num">(\d+)<\/td>/g)].map((m) => Number(m[1]));
    expect(numbers).toEqual(exp.auditTrail.map((e) => e.pos));
  });

  it('refuses two audit events swapped in the export (pos and hash kept, so only the order is wrong)', async () => {
    const { store } = await finishedRun(kind);
    const exp = exportCopy((await store.exportRun(RUN)) as RunExportV2);
    const n = exp.auditTrail.length;
    [exp.auditTrail[n - 2], exp.auditTrail[n - 1]] = [exp.auditTrail[n - 1]!, exp.auditTrail[n - 2]!];
    const v = broken(verifyExport(exp));
    expect(v.field, v.problem).toBe('auditTrail[6]');
    expect(v.problem).toMatch(/out of order/);
  });

  it('an emptied audit trail fails even with --expect-head given the true head', async () => {
    const { store } = await finishedRun(kind);
    const head = (await store.getRun(RUN))!.headHash!;
    const exp = exportCopy((await store.exportRun(RUN)) as RunExportV2);
    exp.auditTrail = [];
    expect(verifyExport(exp, { expectedHeadHash: head }).ok).toBe(false);
  });

  it('a head kept before a purge still anchors the purged export; one kept mid-run does not pass a finished run', async () => {
    const { store } = await finishedRun(kind);
    const before = (await store.getRun(RUN))!.headHash!;
    await store.purge({ olderThanMs: 0, now: new Date('2026-09-01T00:00:00.000Z') });
    const after = (await store.exportRun(RUN)) as RunExportV2;
    expect(verifyExport(after, { expectedHeadHash: before })).toMatchObject({ ok: true, purgedScreenshots: 4 });
    const midRun = after.chain.stepHashes[1]!;
    expect(verifyExport(after, { expectedHeadHash: midRun })).toMatchObject({ ok: false, field: 'headHash' });
  });
});

/** Recomputes every hash of an export from its genesis: what a forger with this program can do. */
function rechain(exp: RunExportV2): void {
  let prev = sha256Hex(canonicalJson(exp.chain.genesis));
  const byPos = new Map<number, { step?: number; event?: number }>();
  exp.chain.stepPositions.forEach((p, i) => byPos.set(p!, { step: i }));
  exp.auditTrail.forEach((e, i) => byPos.set(e.pos!, { event: i }));
  for (let pos = 0; pos < exp.chain.recordCount; pos++) {
    const at = byPos.get(pos)!;
    if (at.step !== undefined) {
      const step = exp.steps[at.step]!;
      prev = stepHash(prev, canonicalJson(step), step.screenshotHash);
      exp.chain.stepHashes[at.step] = prev;
    } else {
      const e = exp.auditTrail[at.event!]!;
      prev = eventHash(prev, eventChainJson({ ...e, pos }));
      e.hash = prev;
    }
  }
  exp.chain.headHash = prev;
  exp.run.headHash = prev;
}

describe('the head log', () => {
  it('catches a whole chain rewritten from its genesis, which verifies as intact on its own', async () => {
    const { store } = await finishedRun('sqlite');
    const dir = tempDir();
    const log = join(dir, 'heads.log');
    const records: ChainRecordRef[] = [];
    const v = await store.verifyRun(RUN, { onRecord: (r) => records.push(r) });
    expect(v.ok).toBe(true);
    const line = appendHead(log, { keptAt: '2026-03-02T09:16:01.000Z', runId: RUN, records: records.length, head: v.ok ? v.headHash! : '', status: 'done' });
    expect(line).toMatch(new RegExp(`^2026-03-02T09:16:01.000Z ${RUN} 8 ${v.ok ? v.headHash : ''} done [0-9a-f]{64}$`));
    appendHead(log, { keptAt: '2026-03-02T09:20:00.000Z', runId: 'run-other', records: 3, head: 'a'.repeat(64), status: 'failed' });
    const entries = readHeadLog(log);
    expect(entries.map((e) => e.runId)).toEqual([RUN, 'run-other']);
    expect(checkHeads(RUN, records, entries)).toMatchObject({ ok: true, entries: 1, unanchored: 0 });

    // The approval rewritten and every hash after it recomputed: intact on its own...
    const forged = exportCopy((await store.exportRun(RUN)) as RunExportV2);
    forged.steps[2]!.actions[2]!.approval!.by = 'Office Manager';
    rechain(forged);
    const forgedRecords: ChainRecordRef[] = [];
    expect(verifyExport(forged, { onRecord: (r) => forgedRecords.push(r) })).toMatchObject({ ok: true });
    // ...but not against the head kept elsewhere.
    expect(checkHeads(RUN, forgedRecords, entries)).toMatchObject({ ok: false, problem: expect.stringMatching(/not a record of this chain/) });

    // The outcome record cut off and the chain recomputed: a done run without its outcome fails on its own.
    const cut = exportCopy((await store.exportRun(RUN)) as RunExportV2);
    cut.auditTrail.pop();
    cut.chain.recordCount -= 1;
    rechain(cut);
    expect(verifyExport(cut)).toMatchObject({ ok: false, field: 'outcome' });
  });

  it('refuses a malformed line, naming it', () => {
    const path = join(tempDir(), 'heads.log');
    writeFileSync(path, `# comment\n2026-03-02T09:16:01.000Z ${RUN} 8 ${'b'.repeat(64)} done\nnot a line\n`);
    expect(() => readHeadLog(path)).toThrow(/line 3 is not a head-log line/);
    expect(parseHeadLog('# only a comment\n', 'x')).toEqual([]);
  });
});

eachStore('runs recorded before chain format 2', (kind) => {
  it('verify in format 1 and say what that covers', async () => {
    const path = await storeTarget(kind);
    const store = await path.open();
    await store.createRun(newRun());
    await store.recordStep(buildStep(RUN, 0).step, png(0));
    await store.close();
    // As an older Portal Desk left it: the same rows, chain version 1, steps chained from the identity.
    await tamper(path, 'UPDATE runs SET chain_version = 1, genesis_json = NULL, record_count = 0 WHERE id = ?', RUN);
    const json = (await path.value('SELECT json FROM steps WHERE run_id = ?', RUN)) as string;
    const { genesisHash } = await import('../../src/store');
    const run = newRun();
    const hash = stepHash(genesisHash(run), json, (JSON.parse(json) as { screenshotHash: string }).screenshotHash);
    await path.rows('UPDATE steps SET hash = ?, pos = NULL WHERE run_id = ?', hash, RUN);
    await path.rows('UPDATE runs SET head_hash = ? WHERE id = ?', hash, RUN);
    const again = await path.open();
    const v = await again.verifyRun(RUN);
    expect(v).toMatchObject({ ok: true, format: 1, steps: 1 });
    expect(v.ok && v.covers.join('\n')).toMatch(/NOT covered \(older chain format 1\)/);
    // Its export states the genesis hash the report prints: an edit of it is named.
    const exp = JSON.parse(JSON.stringify(await again.exportRun(RUN))) as { version: number; chain: { genesisHash: string } };
    expect(exp.version).toBe(1);
    expect(verifyExport(exp)).toMatchObject({ ok: true, format: 1 });
    exp.chain.genesisHash = sha256Hex('another start');
    expect(broken(verifyExport(exp)).field).toBe('chain.genesisHash');
    await again.close();
  });
});
