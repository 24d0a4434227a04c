import { randomBytes } from 'node:crypto';
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyId, Vault, VaultError } from '../../src/vault';
import { filesContaining, memoryKey, modeOf, tempDir } from './temp-vault';

const PASSWORD = 'Tr0ub4dor&3-vault-test';

async function vaultWithOne() {
  const dir = tempDir();
  const key = memoryKey();
  const vault = new Vault({ dir, keySource: key });
  await vault.set('client-1', 'shops', { username: 'ABCDE1234F', password: PASSWORD });
  return { dir, key, vault, file: join(dir, 'credentials', readdirSync(join(dir, 'credentials'))[0]!) };
}

function edit(file: string, change: (record: Record<string, string>) => void): void {
  const record = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  change(record);
  writeFileSync(file, JSON.stringify(record));
}

async function problemOf(promise: Promise<unknown>): Promise<{ problem: string; message: string }> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(VaultError);
  return { problem: (err as VaultError).problem, message: (err as VaultError).message };
}

describe('Vault', () => {
  it('gives back what was saved, and null for what was not', async () => {
    const { vault } = await vaultWithOne();
    expect(await vault.get('client-1', 'shops')).toEqual({ username: 'ABCDE1234F', password: PASSWORD });
    expect(await vault.get('client-1', 'power')).toBeNull();
    expect(await vault.get('client-2', 'shops')).toBeNull();
  });

  it('replaces a login on a second set, with a fresh IV', async () => {
    const { vault, file } = await vaultWithOne();
    const before = JSON.parse(readFileSync(file, 'utf8')) as { iv: string };
    await vault.set('client-1', 'shops', { username: 'ABCDE1234F', password: 'new-password-42' });
    const after = JSON.parse(readFileSync(file, 'utf8')) as { iv: string };
    expect(after.iv).not.toBe(before.iv);
    expect(Buffer.from(after.iv, 'base64')).toHaveLength(12);
    expect((await vault.get('client-1', 'shops'))?.password).toBe('new-password-42');
  });

  it('writes no password or username in any form, and only 0600 files in 0700 folders', async () => {
    const { dir } = await vaultWithOne();
    expect(filesContaining(dir, PASSWORD)).toEqual([]);
    expect(filesContaining(dir, 'ABCDE1234F')).toEqual([]);
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(join(dir, 'credentials'))).toBe(0o700);
    for (const name of readdirSync(join(dir, 'credentials'))) expect(modeOf(join(dir, 'credentials', name))).toBe(0o600);
    expect(modeOf(join(dir, 'vault.json'))).toBe(0o600);
    expect(readdirSync(join(dir, 'credentials')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('lists client, portal, username and date, never the password', async () => {
    const { vault } = await vaultWithOne();
    await vault.set('client-0', 'power', { username: 'meter-77', password: 'another-Secret-9' });
    const list = await vault.list();
    expect(list.map((e) => [e.clientId, e.portalId, e.username])).toEqual([
      ['client-0', 'power', 'meter-77'],
      ['client-1', 'shops', 'ABCDE1234F'],
    ]);
    for (const entry of list) expect(Object.keys(entry).sort()).toEqual(['clientId', 'portalId', 'updatedAt', 'username']);
    const text = JSON.stringify(list);
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain('another-Secret-9');
  });

  it('removes a login and says whether there was one', async () => {
    const { vault } = await vaultWithOne();
    expect(await vault.remove('client-1', 'shops')).toBe(true);
    expect(await vault.remove('client-1', 'shops')).toBe(false);
    expect(await vault.get('client-1', 'shops')).toBeNull();
    expect(await vault.list()).toEqual([]);
  });

  it('refuses a changed ciphertext, tag or date with a clear error that names the entry, not the password', async () => {
    for (const change of [
      (r: Record<string, string>) => {
        const bytes = Buffer.from(r.ciphertext!, 'base64');
        bytes[0]! ^= 1;
        r.ciphertext = bytes.toString('base64');
      },
      (r: Record<string, string>) => {
        r.tag = randomBytes(16).toString('base64');
      },
      (r: Record<string, string>) => {
        r.updatedAt = '2020-01-01T00:00:00.000Z';
      },
    ]) {
      const { vault, file } = await vaultWithOne();
      edit(file, change);
      const { problem, message } = await problemOf(vault.get('client-1', 'shops'));
      expect(problem).toBe('tampered');
      expect(message).toMatch(/saved login for client "client-1" on portal "shops" failed its integrity check/);
      expect(message).toContain('portal-desk vault remove --client client-1 --portal shops');
      expect(message).not.toContain(PASSWORD);
    }
  });

  it('refuses a record moved into another entry, even when its ids are rewritten to match', async () => {
    const { dir, key, vault, file } = await vaultWithOne();
    await vault.set('client-2', 'shops', { username: 'other', password: 'client-2-pw' });
    const other = readdirSync(join(dir, 'credentials')).map((n) => join(dir, 'credentials', n)).find((p) => p !== file)!;

    copyFileSync(file, other); // client-1's login in client-2's place
    const moved = await problemOf(vault.get('client-2', 'shops'));
    expect(moved.problem).toBe('misplaced');
    expect(moved.message).toMatch(/holds the credentials record of client "client-1"/);

    edit(other, (r) => {
      r.clientId = 'client-2'; // the associated data no longer matches the tag
    });
    expect((await problemOf(vault.get('client-2', 'shops'))).problem).toBe('tampered');
    expect((await problemOf(new Vault({ dir, keySource: key }).list())).problem).toBe('tampered');
  });

  it('refuses another key, both to read and to write, and keeps the record', async () => {
    const { dir, file } = await vaultWithOne();
    const before = readFileSync(file);
    const stranger = new Vault({ dir, keySource: memoryKey(randomBytes(32), 'a stranger key') });
    const read = await problemOf(stranger.get('client-1', 'shops'));
    expect(read.problem).toBe('wrong-key');
    expect(read.message).toMatch(/sealed with key [0-9a-f]{16}, but the key at hand \(a stranger key\)/);
    const write = await problemOf(stranger.set('client-1', 'shops', { username: 'x', password: 'y-password' }));
    expect(write.problem).toBe('wrong-key');
    expect(write.message).toMatch(/Nothing was saved/);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('does not rely on the key id: a forged key id still fails authentication', async () => {
    const { dir, file } = await vaultWithOne();
    const otherKey = randomBytes(32);
    edit(file, (r) => {
      r.keyId = keyId(otherKey);
    });
    expect((await problemOf(new Vault({ dir, keySource: memoryKey(otherKey) }).get('client-1', 'shops'))).problem).toBe('tampered');
  });

  it('refuses a file that is not a sealed record', async () => {
    const { vault, file } = await vaultWithOne();
    writeFileSync(file, '{"format": "something else"}');
    const { problem, message } = await problemOf(vault.get('client-1', 'shops'));
    expect(problem).toBe('damaged');
    expect(message).toContain(file);
  });

  it('refuses ids that are not ids and logins it cannot store, without quoting the password', async () => {
    const vault = new Vault({ dir: tempDir(), keySource: memoryKey() });
    expect((await problemOf(vault.get('../etc', 'shops'))).problem).toBe('bad-id');
    expect((await problemOf(vault.set('c', 'shops portal', { username: 'u', password: 'p' }))).problem).toBe('bad-id');
    expect((await problemOf(vault.set('c', 'shops', { username: '', password: 'p' }))).problem).toBe('bad-input');
    expect((await problemOf(vault.set('c', 'shops', { username: 'u', password: '' }))).problem).toBe('bad-input');
    const multiline = await problemOf(vault.set('c', 'shops', { username: 'u', password: 'line-one\nline-two' }));
    expect(multiline.message).not.toContain('line-one');
  });
});
