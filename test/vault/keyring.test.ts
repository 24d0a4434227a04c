import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseKeySource, KeyFileSource, openVault, SecretToolKeySource, VaultError } from '../../src/vault';
import { tempDir } from './temp-vault';

/**
 * A stand-in for libsecret's secret-tool with its exit-code contract: lookup prints the secret
 * or exits 1 silently; store reads the secret from standard input; a keyring that cannot be
 * reached exits 1 with a reason on standard error. It logs its arguments, to show the key is
 * never passed on a command line.
 */
function fakeSecretTool(): { bin: string; store: string; log: string; env: (extra?: NodeJS.ProcessEnv) => NodeJS.ProcessEnv } {
  const root = tempDir('pd-keyring-');
  const bin = join(root, 'bin');
  mkdirSync(bin);
  const store = join(root, 'keyring');
  const log = join(root, 'args.log');
  writeFileSync(
    join(bin, 'secret-tool'),
    `#!/bin/sh
PATH=/usr/bin:/bin
echo "$@" >> '${log}'
if [ -n "$FAKE_KEYRING_DOWN" ]; then echo "secret-tool: Cannot autolaunch D-Bus without X11 \\$DISPLAY" >&2; exit 1; fi
case "$1" in
  lookup) [ -f '${store}' ] || exit 1; cat '${store}' ;;
  store) cat > '${store}' ;;
  *) exit 2 ;;
esac
`,
  );
  chmodSync(join(bin, 'secret-tool'), 0o755);
  return { bin, store, log, env: (extra = {}) => ({ PATH: bin, PORTAL_DESK_HOME: join(root, 'home'), ...extra }) };
}

describe('SecretToolKeySource', () => {
  it('stores a new key through standard input on first use and finds the same key after', async () => {
    const tool = fakeSecretTool();
    const source = new SecretToolKeySource(join(tool.bin, 'secret-tool'), tool.env());
    expect(await source.lookup()).toEqual({ absent: true });
    const key = await source.key();
    expect(key).toHaveLength(32);
    expect(readFileSync(tool.store, 'utf8')).toBe(key.toString('base64'));
    expect((await source.key()).equals(key)).toBe(true);
    const args = readFileSync(tool.log, 'utf8');
    expect(args).toContain('store --label=Portal Desk vault key application portal-desk purpose vault-key');
    expect(args).not.toContain(key.toString('base64'));
  });

  it('says so when the keyring cannot be reached, with secret-tool\'s reason', async () => {
    const tool = fakeSecretTool();
    const source = new SecretToolKeySource(join(tool.bin, 'secret-tool'), tool.env({ FAKE_KEYRING_DOWN: '1' }));
    const err = await source.key().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VaultError);
    expect((err as VaultError).problem).toBe('keyring');
    expect((err as VaultError).message).toMatch(/did not give the vault key: secret-tool: Cannot autolaunch D-Bus/);
  });

  it('refuses a keyring entry that is not a 32-byte key', async () => {
    const tool = fakeSecretTool();
    writeFileSync(tool.store, 'hunter2');
    const err = await new SecretToolKeySource(join(tool.bin, 'secret-tool'), tool.env()).key().catch((e: unknown) => e);
    expect((err as VaultError).message).toMatch(/not a Portal Desk key/);
  });
});

describe('chooseKeySource', () => {
  const vaultDirOf = (env: NodeJS.ProcessEnv) => join(env.PORTAL_DESK_HOME!, 'vault');

  it('takes the keyring for a new vault when secret-tool answers', async () => {
    const tool = fakeSecretTool();
    const env = tool.env();
    expect((await chooseKeySource({ vaultDir: vaultDirOf(env), env })).kind).toBe('keyring');
  });

  it('takes a key file when secret-tool is missing or the keyring does not answer', async () => {
    const missing = { PATH: tempDir(), PORTAL_DESK_HOME: tempDir() };
    expect((await chooseKeySource({ vaultDir: vaultDirOf(missing), env: missing })).kind).toBe('file');
    const down = fakeSecretTool().env({ FAKE_KEYRING_DOWN: '1' });
    expect((await chooseKeySource({ vaultDir: vaultDirOf(down), env: down })).kind).toBe('file');
  });

  it('keeps an existing key file, and follows PORTAL_DESK_VAULT_KEY for a new vault', async () => {
    const tool = fakeSecretTool();
    const env = tool.env();
    expect((await chooseKeySource({ vaultDir: vaultDirOf(env), env: { ...env, PORTAL_DESK_VAULT_KEY: 'file' } })).kind).toBe('file');
    await new KeyFileSource(join(env.PORTAL_DESK_HOME!, 'vault.key')).key();
    expect((await chooseKeySource({ vaultDir: vaultDirOf(env), env })).kind).toBe('file');
    await expect(chooseKeySource({ vaultDir: vaultDirOf(env), env: { ...env, PORTAL_DESK_VAULT_KEY: 'tpm' } })).rejects.toThrow(/must be auto, file or keyring/);
  });

  it('keeps a keyring vault in the keyring: when it is locked the answer is an error, not a new key file', async () => {
    const tool = fakeSecretTool();
    const env = tool.env();
    const { vault } = await openVault({ env });
    await vault.set('c1', 'shops', { username: 'u1', password: 'Keyring-Secret-1' });

    const locked = await openVault({ env: { ...env, FAKE_KEYRING_DOWN: '1' } });
    expect(locked.keySource.kind).toBe('keyring');
    await expect(locked.vault.get('c1', 'shops')).rejects.toThrow(/OS keyring did not give the vault key/);
    await expect(locked.vault.set('c2', 'shops', { username: 'u2', password: 'p2-secret' })).rejects.toThrow(VaultError);
    expect(existsSync(join(env.PORTAL_DESK_HOME!, 'vault.key'))).toBe(false);

    const gone = { ...env, PATH: tempDir() };
    await expect(openVault({ env: gone })).rejects.toThrow(/uses the OS keyring, but secret-tool is not on PATH/);
    await expect(openVault({ env: { ...env, PORTAL_DESK_VAULT_KEY: 'file' } })).rejects.toThrow(/applies to a new vault only/);

    expect((await (await openVault({ env })).vault.get('c1', 'shops'))?.password).toBe('Keyring-Secret-1');
  });
});
