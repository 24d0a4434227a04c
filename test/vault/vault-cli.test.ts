import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesContaining, tempDir } from './temp-vault';

const root = join(__dirname, '..', '..');
// Runs once src/cli/main.ts registers the command; until then vault-command.test.ts covers it in-process.
const registered = /commands\/vault/.test(readFileSync(join(root, 'src', 'cli', 'main.ts'), 'utf8'));

function cli(args: string[], home: string, input?: string) {
  return spawnSync(process.execPath, [join(root, 'bin', 'portal-desk.js'), 'vault', ...args], {
    cwd: root,
    input,
    encoding: 'utf8',
    env: { PATH: tempDir(), HOME: home, PORTAL_DESK_HOME: home },
    timeout: 60_000,
  });
}

describe.runIf(registered)('portal-desk vault, as a process', () => {
  it('saves from a pipe, lists without the password, and removes', () => {
    const home = tempDir();
    const password = 'Spawned-Secret-31';
    const set = cli(['set', '--client', 'client-1', '--portal', 'shops', '--username', 'u1', '--password-stdin'], home, `${password}\n`);
    expect(set.stderr).toBe('');
    expect(set.status).toBe(0);
    const list = cli(['list', '--json'], home);
    expect(list.status).toBe(0);
    expect(JSON.parse(list.stdout)).toMatchObject([{ clientId: 'client-1', portalId: 'shops', username: 'u1' }]);
    const usage = cli(['set', '--client', 'client 1', '--portal', 'shops', '--password-stdin'], home, `${password}\n`);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/^portal-desk vault: "client 1" is not a client id/);
    for (const run of [set, list, usage]) expect(run.stdout + run.stderr).not.toContain(password);
    expect(filesContaining(home, password)).toEqual([]);
    expect(cli(['remove', '--client', 'client-1', '--portal', 'shops'], home).status).toBe(0);
  });
});
