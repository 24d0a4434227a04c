import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLab, type Lab } from '../../lab';
import { loadCaseFile } from '../../src/agent/case/case-files';
import { openStore } from '../../src/store';
import { REPO, runCli } from '../support/cli';

/**
 * Issue 29, item 4: one run per client and portal on a store, the CLI's `run` included. Two `run`s
 * of the same case on one store at the same moment, against one lab: one runs and submits, the
 * other is refused in one line (exit 2) before it touches the portal. The lab holds one submission.
 */
const SHOPS_CASE = join(REPO, 'resources/cases/shops-renewal-anand-bakery.json');

describe('two concurrent `run`s of one case on one store', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('one submission: the second is refused while the first holds the client', { timeout: 400_000 }, async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'pd-twice-')), 'runs.sqlite');
    const args = ['run', '--case', SHOPS_CASE, '--approve', 'all', '--json', '--db', db, '--lab-url', `http://127.0.0.1:${lab.port}`];
    const [a, b] = await Promise.all([runCli(args, { timeoutMs: 360_000 }), runCli(args, { timeoutMs: 360_000 })]);
    const codes = [a.code, b.code].sort();
    expect(codes, `${a.stderr.slice(-1500)}\n----\n${b.stderr.slice(-1500)}`).toEqual([0, 2]);
    const refused = a.code === 2 ? a : b;
    const lastLine = refused.stderr.trim().split('\n').at(-1)!;
    expect(lastLine).toMatch(/^portal-desk run: client \S+ on portal shops is being run already \(run run-\S+, process \d+\); nothing ran/);
    const clientId = loadCaseFile(SHOPS_CASE).clientId;
    expect(lab.submissions({ clientId })).toHaveLength(1);
    const store = openStore(db);
    try {
      expect((await store.listRuns()).map((r) => r.status)).toEqual(['done']);
    } finally {
      store.close();
    }
  });
});
