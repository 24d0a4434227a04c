import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allMatches, firstMatch, linearPattern } from '../../src/shared/linear-pattern';
import { REPO, runCli } from '../support/cli';

/**
 * Issue 29, item 1: a profile's application-number pattern runs on RE2's linear-time engine. The
 * two patterns that hung a run past its time limit (a nested repeat behind an alternative, and a
 * plain nested repeat) now load and run; a pattern RE2 cannot express (a backreference, a
 * lookahead) is refused when the profile loads, in one line, exit 2, nothing run.
 */
const SHOPS_CASE = join(REPO, 'resources/cases/shops-renewal-anand-bakery.json');
const HOSTILE = ['SHP-\\d{4}-\\d{6}|(.+){15}Z', '(\\d+){15}Z'];

function portalsWith(pattern: string): string {
  const folder = mkdtempSync(join(tmpdir(), 'pd-portals-'));
  const profile = JSON.parse(readFileSync(join(REPO, 'resources/portals/shops.json'), 'utf8'));
  profile.confirmation.applicationNumberPattern = pattern;
  writeFileSync(join(folder, 'shops.json'), JSON.stringify(profile, null, 2));
  return folder;
}

describe('patterns run in linear time (the CLI, as a real process)', () => {
  it('the hostile patterns match a page built to trigger backtracking in seconds, not the hours a backtracking engine takes', () => {
    const page = `${'x'.repeat(50_000)} ${'1'.repeat(50_000)} SHP-2026-000123`;
    for (const source of HOSTILE) {
      const pattern = linearPattern(source);
      const started = performance.now();
      firstMatch(pattern, page);
      allMatches(pattern, page, 50);
      // Linear: well under a second on a quiet machine; the bound leaves room for a loaded one (backtracking here takes hours).
      expect(performance.now() - started, source).toBeLessThan(10_000);
    }
    expect(firstMatch(linearPattern(HOSTILE[0]!), page)).toBe('SHP-2026-000123');
  });

  it('a run whose profile holds `SHP-\\d{4}-\\d{6}|(.+){15}Z` ends done within its time limit', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'pd-re2-')), 'runs.sqlite');
    const started = Date.now();
    const r = await runCli(['run', '--case', SHOPS_CASE, '--approve', 'all', '--json', '--db', db, '--time-limit', '90'], {
      env: { PORTAL_DESK_PORTALS: portalsWith(HOSTILE[0]!) },
      timeoutMs: 110_000,
    });
    expect(r.signal, r.stderr).toBeNull();
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).applicationNumber).toMatch(/^SHP-\d{4}-\d{6}$/);
    expect(Date.now() - started).toBeLessThan(100_000);
    // A whole lab run as a real process (browser start, four sections, the submission): ~25-40 s on
    // two shared cores; the test's budget covers the process's own kill timer (110 s), not the default 60 s.
  }, 120_000);

  it('a backreference or a lookahead is refused at load in one line, exit 2, no store written', async () => {
    for (const pattern of ['(SHP)-\\d+-\\1', 'SHP-(?=\\d{4})\\d+']) {
      const db = join(mkdtempSync(join(tmpdir(), 'pd-re2-')), 'never.sqlite');
      const r = await runCli(['run', '--case', SHOPS_CASE, '--approve', 'all', '--db', db], { env: { PORTAL_DESK_PORTALS: portalsWith(pattern) }, timeoutMs: 60_000 });
      expect(r.code, r.stderr).toBe(2);
      const lines = r.stderr.split('\n').filter((l) => l !== '');
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/confirmation\.applicationNumberPattern: the pattern cannot run in linear time/);
    }
  });
});
