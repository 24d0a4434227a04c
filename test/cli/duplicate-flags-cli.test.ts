import { mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, runCli } from '../support/cli';

/** Issue 29, item 7 (its flag part): a flag given twice was taken silently (the last won); now it is refused in one line, exit 2. */
describe('duplicate flags (the CLI, as a real process)', () => {
  it('refuses --db given twice, for run and verify, before anything runs', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pd-dup-'));
    const [a, b] = [join(dir, 'a.sqlite'), join(dir, 'b.sqlite')];
    const r = await runCli(['run', '--case', join(REPO, 'resources/cases/shops-renewal-anand-bakery.json'), '--db', a, '--db', b, '--approve', 'all'], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual(['portal-desk run: --db is given more than once; give it once']);
    expect(existsSync(a) || existsSync(b)).toBe(false);
    const v = await runCli(['verify', 'run-1', '--db', a, '--db', b], { timeoutMs: 60_000 });
    expect(v.code).toBe(2);
    expect(v.stderr).toMatch(/--db is given more than once/);
  });
});
