import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, runCli } from '../support/cli';

/**
 * Issue 29, item 5: a case or profile key naming an object's own machinery (`constructor`,
 * `hasOwnProperty`, `toString`, `__proto__`…) is refused when the file loads, in one line, exit 2,
 * no store written: it once passed validation and crashed the run, leaving it `running`.
 */
const dir = mkdtempSync(join(tmpdir(), 'pd-proto-'));
const CASE = JSON.parse(readFileSync(join(REPO, 'resources/cases/shops-renewal-anand-bakery.json'), 'utf8'));

async function refused(args: string[], env: Record<string, string> = {}): Promise<string> {
  const r = await runCli(args, { env, timeoutMs: 60_000 });
  expect(r.signal).toBeNull();
  expect(r.code, r.stderr).toBe(2);
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  expect(lines, r.stderr).toHaveLength(1);
  return lines[0]!;
}

describe('keys naming prototype machinery (the CLI, as a real process)', () => {
  it('refuses a case field or a case key named constructor, hasOwnProperty or toString', { timeout: 300_000 }, async () => {
    for (const [name, where] of [
      ['constructor', 'fields'],
      ['hasOwnProperty', 'fields'],
      ['toString', 'case'],
    ] as const) {
      const copy = structuredClone(CASE) as Record<string, unknown>;
      const target = (where === 'fields' ? copy.fields : copy) as Record<string, unknown>;
      const key: string = name;
      target[key] = 'x';
      const path = join(dir, `case-${name}.json`);
      writeFileSync(path, JSON.stringify(copy, null, 2));
      const db = join(mkdtempSync(join(dir, 'db-')), 'never.sqlite');
      const line = await refused(['run', '--case', path, '--db', db, '--approve', 'all']);
      expect(line).toMatch(new RegExp(`a key named "${name}" is refused: it names a JavaScript object's own machinery`));
      expect(existsSync(db)).toBe(false);
    }
  });

  it('refuses a profile key named valueOf', { timeout: 120_000 }, async () => {
    const portals = mkdtempSync(join(dir, 'portals-'));
    const profile = JSON.parse(readFileSync(join(REPO, 'resources/portals/shops.json'), 'utf8'));
    profile.signIn.valueOf = 'x';
    writeFileSync(join(portals, 'shops.json'), JSON.stringify(profile, null, 2));
    const line = await refused(['run', '--case', join(REPO, 'resources/cases/shops-renewal-anand-bakery.json'), '--db', join(dir, 'p.sqlite'), '--approve', 'all'], { PORTAL_DESK_PORTALS: portals });
    expect(line).toMatch(/a key named "valueOf" is refused/);
  });
});
