import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyCommand } from '../../src/cli/commands/verify';
import { openCommandStore } from '../../src/cli/store-opening';
import { openStore } from '../../src/store';
import { runCli, tempHome } from '../support/cli';
import { CANARY, LINE_CAP, malformedCase, REPO, seeded } from '../input/malformed';

/**
 * Issue 12 through the real CLI (a process each, ~3 CPU-s through tsx, so a small set): every bad
 * input ends with exit 2 and exactly one line on stderr, writes no store, and never hangs.
 */
const dir = mkdtempSync(join(tmpdir(), 'pd-bad-cli-'));
const GOOD_CASE = join(REPO, 'resources/cases/shops-renewal-anand-bakery.json');
const PREFIX = 120; // "portal-desk run: " and a temp path ahead of the problem

async function refusedInOneLine(args: string[], env: Record<string, string> = {}): Promise<string> {
  const result = await runCli(args, { env, timeoutMs: 60_000 });
  expect(result.signal, `killed: ${args.join(' ')}\n${result.stderr}`).toBeNull();
  expect(result.code, result.stderr).toBe(2);
  expect(result.stdout).toBe('');
  const lines = result.stderr.split('\n').filter((l) => l !== '');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]!.length).toBeLessThanOrEqual(LINE_CAP + PREFIX);
  expect(result.stderr).not.toContain(CANARY);
  return lines[0]!;
}

function newDb(): string {
  return join(mkdtempSync(join(dir, 'db-')), 'never-written.sqlite');
}

describe('bad input through the CLI: exit 2, one line, no store written, no hang', () => {
  it('refuses case files that are not case files', async () => {
    const fifo = join(dir, 'case-pipe.json');
    execFileSync('mkfifo', [fifo]);
    const passwd = join(dir, 'case-passwd.json');
    symlinkSync('/etc/passwd', passwd);
    const generated = [0, 1, 2].map((i) => {
      const m = malformedCase(seeded(77_000 + i));
      const path = join(dir, `generated-${i}.json`);
      writeFileSync(path, m.bytes);
      return { path, m };
    });
    for (const { path, expect: pattern } of [
      { path: fifo, expect: /is a named pipe \(FIFO\)/ },
      { path: passwd, expect: /not valid JSON: line 1, column 1/ },
      ...generated.map(({ path, m }) => ({ path, expect: m.expect })),
    ]) {
      const db = newDb();
      const line = await refusedInOneLine(['run', '--case', path, '--db', db, '--approve', 'all']);
      expect(line).toMatch(new RegExp(`^portal-desk run: ${path}: `));
      expect(line).toMatch(pattern);
      expect(line).not.toMatch(/root:|\/bin\/bash/);
      expect(existsSync(db)).toBe(false);
    }
  });

  it('console --lab-url takes only a lab\'s http address, refused in one line before the console starts', async () => {
    for (const url of ['ftp://127.0.0.1:41234', 'http://127.0.0.1']) {
      const db = newDb();
      const line = await refusedInOneLine(['console', '--browser', '--no-open', '--db', db, '--lab-url', url]);
      expect(line).toMatch(/^portal-desk console: --lab-url must be /);
      expect(existsSync(db)).toBe(false);
    }
  });

  it('refuses numbers that are not plain digits, in one line (not parseArgs three)', async () => {
    for (const value of ['1e2', '-5']) {
      const db = newDb();
      const line = await refusedInOneLine(['run', '--case', GOOD_CASE, '--db', db, '--max-steps', value]);
      expect(line).toMatch(/^portal-desk run: --max-steps /);
      expect(existsSync(db)).toBe(false);
    }
  });

  it('refuses a store it cannot use, before the lab starts, and exits (corrupt, a folder, a newer schema)', async () => {
    const corrupt = join(dir, 'corrupt.sqlite');
    writeFileSync(corrupt, 'not a database '.repeat(400));
    const folder = join(dir, 'a-folder.sqlite');
    mkdirSync(folder);
    const newer = join(dir, 'newer.sqlite');
    openStore(newer).close();
    const db = new Database(newer);
    db.prepare("INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (99, 'from the future', 'x', '2099-01-01')").run();
    db.close();
    for (const [path, pattern] of [
      [corrupt, /file is not a database/],
      [folder, /it is a folder/],
      [newer, /schema version 99, newer than this Portal Desk understands/],
    ] as const) {
      const line = await refusedInOneLine(['run', '--case', GOOD_CASE, '--db', path, '--approve', 'all']);
      expect(line).toMatch(new RegExp(`^portal-desk run: Could not open the Portal Desk database at ${path}: `));
      expect(line).toMatch(pattern);
    }
    expect(readFileSync(corrupt, 'utf8')).toBe('not a database '.repeat(400));
    // verify: an unusable store is exit 2, not 1 (which says "tampered").
    expect(await refusedInOneLine(['verify', 'run-1', '--db', corrupt])).toMatch(/^portal-desk verify: Could not open .*file is not a database/);
  });

  it('batch of a path that does not exist, replay of a store that does not exist', async () => {
    const db = newDb();
    expect(await refusedInOneLine(['batch', join(dir, 'nonexistent'), '--db', db])).toMatch(/^portal-desk batch: no such file or folder: /);
    expect(await refusedInOneLine(['replay', 'run-1', '--db', db])).toMatch(/^portal-desk replay: No run store at /);
    expect(existsSync(db)).toBe(false);
  });

  it('batch names the case file when its portal profile is broken, in one line, and does not start the lab', async () => {
    const portals = mkdtempSync(join(dir, 'portals-'));
    const profile = join(portals, 'shops.json');
    writeFileSync(profile, readFileSync(join(REPO, 'resources/portals/shops.json'), 'utf8').replace(/"name": ?/, '"id": "shops", "name": '));
    const result = await runCli(['batch', GOOD_CASE, '--db', newDb(), '--approve', 'all'], { env: { PORTAL_DESK_PORTALS: portals }, timeoutMs: 60_000 });
    expect(result.signal).toBeNull();
    expect(result.code, result.stderr).toBe(1);
    const refusals = result.stderr.split('\n').filter((l) => l.startsWith('REFUSED'));
    expect(refusals).toEqual([expect.stringMatching(new RegExp(`^REFUSED ${GOOD_CASE}: its portal profile "shops" cannot be used: ${profile}: invalid portal profile: id: this key is given twice`))]);
    expect(result.stderr).not.toMatch(/^lab:/m);
  });

  // Issue 29: allowed hosts are DNS names only, as the user meets it: a profile with an IP number in any
  // spelling the URL parser reads as one, or a port out of range, is refused where `run` loads it.
  it('refuses a profile whose allowed host is an IP number in any spelling or has a port out of range, in one line', async () => {
    const base = JSON.parse(readFileSync(join(REPO, 'resources/portals/shops.json'), 'utf8')) as { allowedHosts: string[] };
    for (const [host, pattern] of [
      ['2130706433', /allowedHosts\.1: 2130706433 is an IP number once a browser reads it \(127\.0\.0\.1\)/],
      ['0x7f000001', /allowedHosts\.1: 0x7f000001 is an IP number once a browser reads it \(127\.0\.0\.1\)/],
      ['127.1', /allowedHosts\.1: 127\.1 is an IP number once a browser reads it \(127\.0\.0\.1\)/],
      ['shops.portal.example:0', /allowedHosts\.1: shops\.portal\.example:0 has port 0; a port is 1 to 65535/],
      ['shops.portal.example:99999', /allowedHosts\.1: shops\.portal\.example:99999 has port 99999/],
    ] as const) {
      const portals = mkdtempSync(join(dir, 'portals-'));
      writeFileSync(join(portals, 'shops.json'), JSON.stringify({ ...base, allowedHosts: [...base.allowedHosts, host] }));
      const db = newDb();
      const line = await refusedInOneLine(['run', '--case', GOOD_CASE, '--db', db, '--approve', 'all'], { PORTAL_DESK_PORTALS: portals });
      expect(line).toMatch(pattern);
      expect(existsSync(db)).toBe(false);
    }
  });

  it('a vault whose key file is missing stops run before anything starts', async () => {
    const home = tempHome();
    const set = spawnSync(process.execPath, [join(REPO, 'bin/portal-desk.js'), 'vault', 'set', '--client', 'c1', '--portal', 'shops', '--username', 'u', '--password-stdin'], {
      cwd: REPO,
      input: 'Vault-Pass-9\n',
      env: { ...process.env, PORTAL_DESK_HOME: home, PATH: '/usr/bin:/bin' },
      encoding: 'utf8',
    });
    expect(set.status, set.stderr).toBe(0);
    rmSync(join(home, 'vault.key'));
    const db = newDb();
    const line = await refusedInOneLine(['run', '--case', GOOD_CASE, '--db', db, '--approve', 'all'], { PORTAL_DESK_HOME: home, PATH: '/usr/bin:/bin' });
    expect(line).toMatch(/^portal-desk run: The vault at .* but that file is missing\. Nothing was created or changed\. Restore /);
    expect(existsSync(join(home, 'vault.key'))).toBe(false);
    expect(existsSync(db)).toBe(false);
  });
});

describe('verify on read-only media', () => {
  const mounts: string[] = [];
  afterAll(() => {
    for (const m of mounts) spawnSync('umount', [m]);
  });

  /** A read-only view of `source`: a read-only bind mount where this user may mount, else owner-only read permissions. */
  function readOnlyCopy(source: string): string | null {
    const target = mkdtempSync(join(dir, 'ro-'));
    if (process.getuid?.() === 0) {
      const bind = spawnSync('mount', ['--bind', source, target]);
      if (bind.status !== 0) return null;
      mounts.push(target);
      if (spawnSync('mount', ['-o', 'remount,ro,bind', target]).status !== 0) return null;
      return target;
    }
    for (const f of readdirSync(source)) chmodSync(join(source, f), 0o444);
    chmodSync(source, 0o555);
    return source;
  }

  it('verifies a run in a store it cannot write beside (no -shm can be made), and writes nothing', async (ctx) => {
    const source = mkdtempSync(join(dir, 'archive-'));
    const path = join(source, 'portal-desk.sqlite');
    const store = openStore(path);
    await store.createRun({ id: 'run-archived', caseId: 'c', clientId: 'client', portal: 'shops', task: 'renewal', planner: 'rules', approveMode: 'all', status: 'running', caseJson: '{}', startedAt: '2026-12-01T00:00:00.000Z' });
    store.close();
    const before = readdirSync(source).sort();
    const ro = readOnlyCopy(source);
    if (!ro) ctx.skip();
    const lines: string[] = [];
    const log = console.log;
    console.log = (line: string) => lines.push(line);
    try {
      expect(await verifyCommand(['run-archived', '--db', join(ro!, 'portal-desk.sqlite')])).toBe(0);
    } finally {
      console.log = log;
    }
    expect(lines[0]).toMatch(/^intact \(0 steps/);
    // A command that records refuses the same store in one line instead of failing somewhere later.
    expect(() => openCommandStore(join(ro!, 'portal-desk.sqlite'), 'write')).toThrow(/: it is on a read-only file system or cannot be written; .*Nothing was changed\.$/);
    expect(readdirSync(ro!).sort()).toEqual(before);
  });
});
