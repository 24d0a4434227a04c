import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HEAVIEST } from '../support/heavy-first-sequencer';
import { ALONE, TIERS, type Tier } from '../support/tiers';

/** The tier table (test/support/tiers.ts) against the test files on disk. */
const ROOT = resolve(__dirname, '../..');

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.ts') ? [relative(ROOT, path).replaceAll('\\', '/')] : [];
  });
}

const tiersOf = (file: string) => (Object.keys(TIERS) as Tier[]).filter((tier) => (TIERS[tier] as readonly string[]).includes(file));

/** What a unit file may not import itself: a browser, PostgreSQL, the lab's servers, a server or a child process. */
const NOT_IN_UNIT = [
  /from 'playwright-core'/,
  /\blaunchChromium\b/,
  /support\/(postgres|engine|cli)'/,
  /from 'pg'/,
  /\bstartLab\b/,
  /\bstartMessagesApi\b/,
  /\bRealityBench\b/,
  /from 'node:child_process'/,
  /\bcreateServer\b/,
];

describe('the test tiers', () => {
  const onDisk = testFiles(join(ROOT, 'test')).sort();

  it('put every test file in exactly one tier', () => {
    expect(onDisk.length).toBeGreaterThan(100);
    const wrong = onDisk.map((file) => [file, tiersOf(file)] as const).filter(([, tiers]) => tiers.length !== 1);
    expect(wrong.map(([file, tiers]) => `${file}: ${tiers.length ? tiers.join(' and ') : 'no tier'}`)).toEqual([]);
  });

  it('list no file that is not there, and no file twice', () => {
    const listed = Object.values(TIERS).flat();
    expect(listed.filter((file) => !onDisk.includes(file))).toEqual([]);
    expect(listed.length).toBe(new Set(listed).size);
    expect(ALONE.filter((file) => tiersOf(file).join() !== 'integration')).toEqual([]);
    // The sequencer's longest-first list names files that are there (a renamed one would silently run last again).
    expect(HEAVIEST.filter((file) => !onDisk.includes(file))).toEqual([]);
  });

  it('keep the unit tier in-process: no unit file imports a browser, PostgreSQL, a lab server, a server or a child process', () => {
    // (This file names the patterns; it is the one unit file they are not checked in.)
    const offending = TIERS.unit.filter((file) => file !== 'test/architecture/tiers.test.ts').flatMap((file) => {
      const text = readFileSync(join(ROOT, file), 'utf8');
      return NOT_IN_UNIT.filter((pattern) => pattern.test(text)).map((pattern) => `${file}: ${pattern.source}`);
    });
    expect(offending).toEqual([]);
  });
});
