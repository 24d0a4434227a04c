import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataFolder, defaultKeyFile, KeyFileSource, Vault, VaultError } from '../../src/vault';
import { filesContaining, modeOf, tempDir } from './temp-vault';

const posix = process.platform !== 'win32';

async function refusal(source: KeyFileSource): Promise<VaultError> {
  const err = await source.key().then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(VaultError);
  return err as VaultError;
}

describe('the data folder', () => {
  it('is $PORTAL_DESK_HOME, else $XDG_DATA_HOME/portal-desk, else ~/.local/share/portal-desk', () => {
    expect(dataFolder({ PORTAL_DESK_HOME: '/a', XDG_DATA_HOME: '/b', HOME: '/c' })).toBe('/a');
    expect(dataFolder({ PORTAL_DESK_HOME: '', XDG_DATA_HOME: '/b', HOME: '/c' })).toBe(join('/b', 'portal-desk'));
    expect(dataFolder({ HOME: '/c' })).toBe(join('/c', '.local', 'share', 'portal-desk'));
    expect(defaultKeyFile('/a')).toBe(join('/a', 'vault.key'));
  });
});

describe('KeyFileSource', () => {
  it('creates 32 random bytes in a 0600 file (and a 0700 folder) on first use, and reads the same key after', async () => {
    const path = join(tempDir(), 'portal-desk', 'vault.key');
    const key = await new KeyFileSource(path).key();
    expect(key).toHaveLength(32);
    expect(readFileSync(path).equals(key)).toBe(true);
    if (posix) {
      expect(modeOf(path)).toBe(0o600);
      expect(modeOf(join(path, '..'))).toBe(0o700);
    }
    expect((await new KeyFileSource(path).key()).equals(key)).toBe(true);
  });

  it('lets exactly one key win when several processes start at once', async () => {
    const path = join(tempDir(), 'vault.key');
    const keys = await Promise.all(Array.from({ length: 8 }, () => new KeyFileSource(path).key()));
    for (const key of keys) expect(key.equals(keys[0]!)).toBe(true);
  });

  it.runIf(posix).each([0o644, 0o640, 0o604, 0o620])('refuses a key file with mode %o and says how to fix it', async (mode) => {
    const path = join(tempDir(), 'vault.key');
    const source = new KeyFileSource(path);
    await source.key();
    chmodSync(path, mode);
    const err = await refusal(source);
    expect(err.problem).toBe('key-file');
    expect(err.message).toContain(`mode 0${mode.toString(8)}`);
    expect(err.message).toContain(`chmod 600 '${path}'`);
    chmodSync(path, 0o600);
    expect(await source.key()).toHaveLength(32);
  });

  it('refuses a key file of the wrong size instead of making a new key', async () => {
    const dir = tempDir();
    const path = join(dir, 'vault.key');
    writeFileSync(path, 'short', { mode: 0o600 });
    const err = await refusal(new KeyFileSource(path));
    expect(err.message).toMatch(/holds 5 bytes instead of 32/);
    expect(readFileSync(path, 'utf8')).toBe('short');
  });

  it.runIf(posix)('refuses a symbolic link', async () => {
    const dir = tempDir();
    const real = join(dir, 'real.key');
    await new KeyFileSource(real).key();
    symlinkSync(real, join(dir, 'vault.key'));
    expect((await refusal(new KeyFileSource(join(dir, 'vault.key')))).message).toMatch(/symbolic link/);
  });

  it('seals a vault whose files, key file included, never hold the password', async () => {
    const home = tempDir();
    mkdirSync(join(home, 'vault'));
    const vault = new Vault({ dir: join(home, 'vault'), keySource: new KeyFileSource(join(home, 'vault.key')) });
    await vault.set('c1', 'water', { username: 'w-100', password: 'Key-File-Secret-5' });
    expect(filesContaining(home, 'Key-File-Secret-5')).toEqual([]);
    expect((await new Vault({ dir: join(home, 'vault'), keySource: new KeyFileSource(join(home, 'vault.key')) }).get('c1', 'water'))?.password).toBe('Key-File-Secret-5');
  });
});
