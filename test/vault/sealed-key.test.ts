import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseKeySource, type KeySealer, openVault, SealedKeyFileSource, VaultError } from '../../src/vault';
import { filesContaining, modeOf, tempDir } from './temp-vault';

/** Stands in for Electron's safeStorage: a key this "machine" holds, which the file never sees. */
function machineSealer(name = 'test safeStorage', options: { reseal?: boolean } = {}): KeySealer & { calls: string[] } {
  const machineKey = randomBytes(32);
  const calls: string[] = [];
  return {
    name,
    calls,
    async seal(text) {
      calls.push('seal');
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', machineKey, iv);
      const body = Buffer.concat([c.update(text, 'utf8'), c.final()]);
      return Buffer.concat([iv, c.getAuthTag(), body]);
    },
    async unseal(sealed) {
      calls.push('unseal');
      const d = createDecipheriv('aes-256-gcm', machineKey, sealed.subarray(0, 12));
      d.setAuthTag(sealed.subarray(12, 28));
      return { text: Buffer.concat([d.update(sealed.subarray(28)), d.final()]).toString('utf8'), reseal: options.reseal };
    },
  };
}

describe('SealedKeyFileSource (for the Electron shell)', () => {
  it('keeps only the sealed key in a 0600 file and opens the same key again', async () => {
    const home = tempDir();
    const path = join(home, 'vault.key.sealed');
    const sealer = machineSealer();
    const key = await new SealedKeyFileSource(path, sealer).key();
    expect(key).toHaveLength(32);
    expect(modeOf(path)).toBe(0o600);
    expect(readFileSync(path).includes(key)).toBe(false);
    expect(readFileSync(path).includes(Buffer.from(key.toString('base64')))).toBe(false);
    expect((await new SealedKeyFileSource(path, sealer).key()).equals(key)).toBe(true);
  });

  it('cannot be opened by another machine\'s sealer', async () => {
    const path = join(tempDir(), 'vault.key.sealed');
    await new SealedKeyFileSource(path, machineSealer()).key();
    const err = await new SealedKeyFileSource(path, machineSealer('other machine')).key().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VaultError);
    expect((err as VaultError).message).toMatch(/other machine could not open the sealed key file/);
  });

  it('seals the key again when the sealer asks, keeping the key', async () => {
    const path = join(tempDir(), 'vault.key.sealed');
    const sealer = machineSealer('rotating', { reseal: true });
    const key = await new SealedKeyFileSource(path, sealer).key();
    const before = readFileSync(path);
    expect((await new SealedKeyFileSource(path, sealer).key()).equals(key)).toBe(true);
    expect(readFileSync(path).equals(before)).toBe(false);
    expect(sealer.calls.filter((c) => c === 'seal')).toHaveLength(3);
  });

  // A FIFO takes the same check as the device here (it was read as no bytes, then called a key sealed for another machine);
  // a unit file starts no process, so no mkfifo.
  it('refuses a link, a device or a folder in the sealed key file\'s place in its own words, without blocking or sealing', async () => {
    const home = tempDir();
    const target = join(home, 'elsewhere.sealed');
    const sealer = machineSealer();
    await new SealedKeyFileSource(target, sealer).key();
    const cases: Array<[string, (path: string) => void, RegExp]> = [
      ['link', (path) => symlinkSync(target, path), /is a symbolic link; Portal Desk uses only a plain file/],
      ['device', () => undefined, /is not a regular file \(a device or socket\)/],
      ['folder', (path) => mkdirSync(path), /is not a regular file \(a folder\)/],
    ];
    for (const [name, make, message] of cases) {
      const path = name === 'device' ? '/dev/null' : join(home, `${name}.sealed`);
      make(path);
      const before = sealer.calls.length;
      const err = await new SealedKeyFileSource(path, sealer).key().catch((e: unknown) => e);
      expect(err, name).toBeInstanceOf(VaultError);
      expect((err as VaultError).problem, name).toBe('key-file');
      expect((err as VaultError).message, name).toMatch(message);
      expect(sealer.calls.length, `${name}: the sealer is not asked`).toBe(before);
    }
  });

  it('seals a vault the command line then declines to open', async () => {
    const home = tempDir();
    const env = { PORTAL_DESK_HOME: home, PATH: tempDir() };
    const { vault, dir } = await openVault({ env, keySource: new SealedKeyFileSource(join(home, 'vault.key.sealed'), machineSealer('Electron safeStorage (test)')) });
    await vault.set('c1', 'shops', { username: 'u', password: 'Sealed-Secret-8' });
    expect(filesContaining(home, 'Sealed-Secret-8')).toEqual([]);
    await expect(chooseKeySource({ vaultDir: dir, env })).rejects.toThrow(/sealed key file .* \(opened by Electron safeStorage \(test\)\), which only the Portal Desk app can open/);
  });
});
