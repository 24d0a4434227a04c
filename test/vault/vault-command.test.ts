import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readPasswordStdin, vaultCommand, type VaultCommandIo } from '../../src/cli/commands/vault';
import { EXIT, UsageError } from '../../src/cli/cli-error';
import { openVault } from '../../src/vault';
import { filesContaining, tempDir } from './temp-vault';

const PASSWORD = 'Cli-Pa55word!-xyz';

/** A terminal-less console: stdin from a string, answers to prompts from a list, output captured. */
function fakeConsole(options: { stdin?: string; tty?: boolean; answers?: (string | null)[]; home?: string } = {}) {
  const home = options.home ?? tempDir();
  const out: string[] = [];
  const err: string[] = [];
  const prompts: { question: string; secret: boolean }[] = [];
  const answers = [...(options.answers ?? [])];
  const stdin = Object.assign(Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]), { isTTY: options.tty });
  const io: VaultCommandIo = {
    stdin,
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    env: { PORTAL_DESK_HOME: home, PATH: tempDir() }, // no secret-tool: the key file
    prompt: async (question, o) => {
      prompts.push({ question, secret: o?.secret === true });
      return answers.length ? answers.shift()! : null;
    },
  };
  return { io, home, out, err, prompts, printed: () => [...out, ...err].join('\n') };
}

async function set(home: string, client: string, portal: string, password: string, username?: string): Promise<number> {
  const c = fakeConsole({ home, stdin: `${password}\n` });
  return vaultCommand(['set', '--client', client, '--portal', portal, ...(username ? ['--username', username] : []), '--password-stdin'], c.io);
}

describe('portal-desk vault', () => {
  it('set --password-stdin saves a login that list shows without its password, as a table and as JSON', async () => {
    const c = fakeConsole({ stdin: `${PASSWORD}\n` });
    expect(await vaultCommand(['set', '--client', 'client-1', '--portal', 'shops', '--username', 'ABCDE1234F', '--password-stdin'], c.io)).toBe(EXIT.ok);
    expect(c.out.join('\n')).toMatch(/Saved the login of client client-1 on portal shops \(username ABCDE1234F\)/);
    expect(c.prompts).toEqual([]);

    const table = fakeConsole({ home: c.home });
    expect(await vaultCommand(['list'], table.io)).toBe(EXIT.ok);
    expect(table.out.join('\n')).toMatch(/CLIENT\s+PORTAL\s+USERNAME\s+UPDATED\s+SESSION SAVED\nclient-1\s+shops\s+ABCDE1234F\s+\d{4}-\d\d-\d\dT\S+\s+-/);

    const json = fakeConsole({ home: c.home });
    expect(await vaultCommand(['list', '--json'], json.io)).toBe(EXIT.ok);
    const rows = JSON.parse(json.out.join('\n')) as Record<string, unknown>[];
    expect(rows).toHaveLength(1);
    expect(Object.keys(rows[0]!).sort()).toEqual(['clientId', 'loginStateSavedAt', 'portalId', 'updatedAt', 'username']);
    expect(rows[0]).toMatchObject({ clientId: 'client-1', portalId: 'shops', username: 'ABCDE1234F', loginStateSavedAt: null });

    for (const run of [c, table, json]) expect(run.printed()).not.toContain(PASSWORD);
    expect(filesContaining(c.home, PASSWORD)).toEqual([]);
    expect(existsSync(join(c.home, 'vault.key'))).toBe(true);
    expect((await (await openVault({ env: c.io.env })).vault.get('client-1', 'shops'))?.password).toBe(PASSWORD);
  });

  it('asks for the password twice without echo, and for the username of a new entry', async () => {
    const c = fakeConsole({ answers: ['meter-77', PASSWORD, PASSWORD] });
    expect(await vaultCommand(['set', '--client', 'client-2', '--portal', 'power'], c.io)).toBe(EXIT.ok);
    expect(c.prompts.map((p) => p.secret)).toEqual([false, true, true]);
    expect(c.prompts[1]!.question).toMatch(/Password of client client-2 on portal power \(not shown\)/);
    expect(c.printed()).not.toContain(PASSWORD);
    expect((await (await openVault({ env: c.io.env })).vault.get('client-2', 'power'))).toEqual({ username: 'meter-77', password: PASSWORD });
  });

  it('keeps the username when only the password changes', async () => {
    const home = tempDir();
    await set(home, 'client-1', 'shops', 'first-password', 'ABCDE1234F');
    expect(await set(home, 'client-1', 'shops', 'second-password')).toBe(EXIT.ok);
    expect(await (await openVault({ env: { PORTAL_DESK_HOME: home, PATH: tempDir() } })).vault.get('client-1', 'shops')).toEqual({ username: 'ABCDE1234F', password: 'second-password' });
  });

  it('refuses what it cannot do safely, as usage errors that save nothing', async () => {
    const home = tempDir();
    const attempt = (args: string[], options: Parameters<typeof fakeConsole>[0] = {}) => vaultCommand(args, fakeConsole({ home, ...options }).io);
    const base = ['set', '--client', 'c1', '--portal', 'shops'];
    await expect(attempt([...base, '--password-stdin'], { stdin: 'pw\n' })).rejects.toThrow(/--username NAME is required/);
    await expect(attempt([...base, '--username', 'u', '--password-stdin'], { stdin: 'pw\n', tty: true })).rejects.toThrow(/standard input is a terminal/);
    await expect(attempt([...base, '--username', 'u'])).rejects.toThrow(/no terminal to type the password on; pipe it in with --password-stdin/);
    await expect(attempt([...base, '--username', 'u'], { answers: [PASSWORD, 'typo'] })).rejects.toThrow(/the two passwords differ/);
    await expect(attempt(['set', '--portal', 'shops'])).rejects.toThrow(/--client ID is required/);
    await expect(attempt(['set', '--client', 'c 1', '--portal', 'shops'])).rejects.toThrow(/"c 1" is not a client id/);
    await expect(attempt(['set', '--client', 'c1', '--portal', 'shops', '--pasword', 'x'])).rejects.toThrow(UsageError);
    await expect(attempt(['get', '--client', 'c1'])).rejects.toThrow(/unknown vault command "get"/);
    expect(existsSync(join(home, 'vault', 'credentials'))).toBe(false);
  });

  it('reads one line from standard input: drops the final line break, refuses more', async () => {
    const read = (text: string) => readPasswordStdin({ stdin: Readable.from([Buffer.from(text)]) });
    expect(await read('p a s s\n')).toBe('p a s s');
    expect(await read('windows\r\n')).toBe('windows');
    expect(await read('no-newline')).toBe('no-newline');
    await expect(read('')).rejects.toThrow(/standard input is empty/);
    await expect(read('one\ntwo\n')).rejects.toThrow(/more than one line/);
    await expect(read('x'.repeat(5000))).rejects.toThrow(/more than 4096 bytes/);
  });

  it('remove deletes the login and the saved session; a second remove says nothing was there', async () => {
    const home = tempDir();
    await set(home, 'client-1', 'shops', PASSWORD, 'u1');
    await (await openVault({ env: { PORTAL_DESK_HOME: home, PATH: tempDir() } })).loginStates.save('client-1', 'shops', '{"cookies":[],"origins":[]}');
    const listed = fakeConsole({ home });
    await vaultCommand(['list', '--json'], listed.io);
    expect((JSON.parse(listed.out.join('')) as { loginStateSavedAt: string | null }[])[0]!.loginStateSavedAt).toMatch(/^\d{4}-/);

    const first = fakeConsole({ home });
    expect(await vaultCommand(['remove', '--client', 'client-1', '--portal', 'shops'], first.io)).toBe(EXIT.ok);
    expect(first.out.join('\n')).toBe('Removed the login and the saved login state of client client-1 on portal shops.');
    expect(readdirSync(join(home, 'vault', 'credentials'))).toEqual([]);
    expect(readdirSync(join(home, 'vault', 'login-state'))).toEqual([]);

    const second = fakeConsole({ home });
    expect(await vaultCommand(['remove', '--client', 'client-1', '--portal', 'shops'], second.io)).toBe(EXIT.notDone);
    expect(second.err.join('\n')).toMatch(/nothing saved for client client-1 on portal shops .*; nothing removed/);
  });

  it('refuses a key file other users can read: exit 2 (an unusable vault), the fix, and no password anywhere', async () => {
    const home = tempDir();
    await set(home, 'client-1', 'shops', PASSWORD, 'u1');
    chmodSync(join(home, 'vault.key'), 0o644);
    for (const args of [['list'], ['set', '--client', 'client-1', '--portal', 'shops', '--password-stdin']]) {
      const c = fakeConsole({ home, stdin: 'other-password\n' });
      expect(await vaultCommand(args, c.io)).toBe(EXIT.badInput);
      expect(c.err.join('\n')).toMatch(/^portal-desk vault: The key file .*vault\.key is open to other users \(mode 0644\).*chmod 600/);
      expect(c.printed()).not.toContain(PASSWORD);
    }
  });

  it('reports a tampered entry as exit 1 naming client and portal only', async () => {
    const home = tempDir();
    await set(home, 'client-1', 'shops', PASSWORD, 'u1');
    const file = join(home, 'vault', 'credentials', readdirSync(join(home, 'vault', 'credentials'))[0]!);
    const record = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    writeFileSync(file, JSON.stringify({ ...record, updatedAt: '2001-01-01T00:00:00.000Z' }));
    const c = fakeConsole({ home });
    expect(await vaultCommand(['list'], c.io)).toBe(EXIT.notDone);
    expect(c.err.join('\n')).toMatch(/saved login for client "client-1" on portal "shops" failed its integrity check/);
    expect(c.printed()).not.toContain(PASSWORD);
  });

  it('uses --vault-dir for the records and keeps the key in the data folder', async () => {
    const home = tempDir();
    const elsewhere = join(tempDir(), 'other-vault');
    const c = fakeConsole({ home, stdin: `${PASSWORD}\n` });
    expect(await vaultCommand(['set', '--client', 'c1', '--portal', 'shops', '--username', 'u', '--password-stdin', '--vault-dir', elsewhere], c.io)).toBe(EXIT.ok);
    expect(readdirSync(join(elsewhere, 'credentials'))).toHaveLength(1);
    expect(existsSync(join(home, 'vault'))).toBe(false);
    expect(existsSync(join(home, 'vault.key'))).toBe(true);
    const empty = fakeConsole({ home });
    await vaultCommand(['list'], empty.io);
    expect(empty.out.join('\n')).toMatch(/^No logins saved in /);
  });

  it('prints its usage', async () => {
    const c = fakeConsole();
    expect(await vaultCommand(['--help'], c.io)).toBe(EXIT.ok);
    expect(await vaultCommand([], c.io)).toBe(EXIT.badInput);
    expect(await vaultCommand(['set', '--help'], c.io)).toBe(EXIT.ok);
    expect(c.out.join('\n')).toContain('portal-desk vault set --client ID --portal ID [--username NAME] [--password-stdin]');
  });
});
