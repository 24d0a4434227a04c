import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EncryptedLoginStateStore, Vault, VaultError } from '../../src/vault';
import { filesContaining, memoryKey, modeOf, tempDir } from './temp-vault';

const COOKIE = 'sess-9f8e7d6c5b4a-LOGIN-STATE';
const STATE = JSON.stringify({
  cookies: [{ name: 'SESSION', value: COOKIE, domain: 'shops.lab.test', path: '/', expires: -1, httpOnly: true, secure: false, sameSite: 'Lax' }],
  origins: [{ origin: 'http://shops.lab.test', localStorage: [{ name: 'token', value: 'local-storage-token-77' }] }],
});

function store() {
  const dir = tempDir();
  const keySource = memoryKey();
  return { dir, keySource, states: new EncryptedLoginStateStore({ dir, keySource }) };
}

describe('EncryptedLoginStateStore', () => {
  it('gives back the exact storage state, sealed in a 0600 file with no cookie in sight', async () => {
    const { dir, states } = store();
    await states.save('client-1', 'shops', STATE);
    expect(await states.load('client-1', 'shops')).toBe(STATE);
    expect(await states.load('client-1', 'power')).toBeNull();
    expect(filesContaining(dir, COOKIE)).toEqual([]);
    expect(filesContaining(dir, 'local-storage-token-77')).toEqual([]);
    for (const name of readdirSync(join(dir, 'login-state'))) expect(modeOf(join(dir, 'login-state', name))).toBe(0o600);
  });

  it('lists what is saved without opening it, and removes', async () => {
    const { states } = store();
    await states.save('client-1', 'shops', STATE);
    expect((await states.list()).map((e) => [e.clientId, e.portalId])).toEqual([['client-1', 'shops']]);
    await states.remove('client-1', 'shops');
    await states.remove('client-1', 'shops'); // nothing there: no error
    expect(await states.load('client-1', 'shops')).toBeNull();
    expect(await states.delete('client-1', 'shops')).toBe(false);
  });

  it('refuses what is not a storage-state JSON object, without echoing it', async () => {
    const { states } = store();
    await expect(states.save('client-1', 'shops', `not json ${COOKIE}`)).rejects.toThrow(/is not a JSON object/);
    await expect(states.save('client-1', 'shops', '[1,2]')).rejects.toThrow(VaultError);
    const err = await states.save('client-1', 'shops', `{${COOKIE}`).catch((e: Error) => e);
    expect((err as Error).message).not.toContain(COOKIE);
  });

  it('never opens a login as a login state, or the other way round', async () => {
    const { dir, keySource, states } = store();
    const vault = new Vault({ dir, keySource });
    await vault.set('client-1', 'shops', { username: 'u', password: 'Cross-Kind-Secret' });
    const credentialFile = readdirSync(join(dir, 'credentials'))[0]!;
    mkdirSync(join(dir, 'login-state'), { recursive: true });
    const target = join(dir, 'login-state', credentialFile); // same client and portal, so the same file name
    copyFileSync(join(dir, 'credentials', credentialFile), target);
    await expect(states.load('client-1', 'shops')).rejects.toThrow(/holds the credentials record/);

    const record = JSON.parse(readFileSync(target, 'utf8')) as Record<string, string>;
    writeFileSync(target, JSON.stringify({ ...record, kind: 'login-state' }));
    const err = await states.load('client-1', 'shops').catch((e: unknown) => e);
    expect((err as VaultError).problem).toBe('tampered');
  });

  it('shares the vault\'s key and manifest: another key cannot add a login state', async () => {
    const { dir, states } = store();
    await states.save('client-1', 'shops', STATE);
    const stranger = new EncryptedLoginStateStore({ dir, keySource: memoryKey() });
    await expect(stranger.save('client-2', 'shops', STATE)).rejects.toThrow(/Nothing was saved/);
    await expect(stranger.load('client-1', 'shops')).rejects.toThrow(/sealed with key/);
  });
});
