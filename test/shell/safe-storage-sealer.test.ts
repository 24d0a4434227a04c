import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { safeStorageSealer, SafeStorageRefused, type SafeStorageLike } from '../../src/main/safe-storage-sealer';
import { SealedKeyFileSource } from '../../src/vault';

/** The vault key's sealer over Electron's safeStorage, with a stand-in for safeStorage. */

function fakeSafeStorage(options: { backend?: string; available?: boolean; async?: boolean; reseal?: boolean } = {}): SafeStorageLike & { calls: string[] } {
  const calls: string[] = [];
  const seal = (text: string) => Buffer.from(`sealed:${Buffer.from(text).toString('base64')}`);
  const open = (sealed: Buffer) => {
    const text = sealed.toString();
    if (!text.startsWith('sealed:')) throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
    return Buffer.from(text.slice(7), 'base64').toString();
  };
  const fake: SafeStorageLike & { calls: string[] } = {
    calls,
    isEncryptionAvailable: () => options.available ?? true,
    getSelectedStorageBackend: () => options.backend ?? 'gnome_libsecret',
    encryptString: (text) => (calls.push('encryptString'), seal(text)),
    decryptString: (sealed) => (calls.push('decryptString'), open(sealed)),
  };
  if (options.async) {
    fake.encryptStringAsync = async (text) => (calls.push('encryptStringAsync'), seal(text));
    fake.decryptStringAsync = async (sealed) => (calls.push('decryptStringAsync'), { result: open(sealed), shouldReEncrypt: options.reseal ?? false });
  }
  return fake;
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('safeStorageSealer', () => {
  it('refuses the Linux basic_text backend (a hard-coded password), saying what to do', () => {
    expect(() => safeStorageSealer(fakeSafeStorage({ backend: 'basic_text' }), 'linux')).toThrow(SafeStorageRefused);
    expect(() => safeStorageSealer(fakeSafeStorage({ backend: 'basic_text' }), 'linux')).toThrow(/basic_text.*--password-store=gnome-libsecret/s);
  });

  it('refuses before the app is ready (backend unknown) and when encryption is unavailable', () => {
    expect(() => safeStorageSealer(fakeSafeStorage({ backend: 'unknown' }), 'linux')).toThrow(/not chosen its keyring/);
    expect(() => safeStorageSealer(fakeSafeStorage({ available: false }), 'linux')).toThrow(/not available/);
  });

  it('names the backend in the sealer’s name; other platforms have no backend choice', () => {
    expect(safeStorageSealer(fakeSafeStorage({ backend: 'kwallet6' }), 'linux').name).toBe('Electron safeStorage (kwallet6)');
    expect(safeStorageSealer(fakeSafeStorage({ backend: 'basic_text' }), 'darwin').name).toBe('Electron safeStorage (darwin)');
  });

  it('uses the async API when the runtime has it (Electron 45+), passing on shouldReEncrypt', async () => {
    const storage = fakeSafeStorage({ async: true, reseal: true });
    const sealer = safeStorageSealer(storage, 'linux');
    const sealed = await sealer.seal('key-text');
    expect(await sealer.unseal(sealed)).toEqual({ text: 'key-text', reseal: true });
    expect(storage.calls).toEqual(['encryptStringAsync', 'decryptStringAsync']);
  });

  it('falls back to the synchronous pair on Electron 41 (no async API)', async () => {
    const storage = fakeSafeStorage();
    const sealer = safeStorageSealer(storage, 'linux');
    expect(await sealer.unseal(await sealer.seal('key-text'))).toEqual({ text: 'key-text' });
    expect(storage.calls).toEqual(['encryptString', 'decryptString']);
  });

  it('seals the vault key in a 0600 file through SealedKeyFileSource and opens the same key again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portal-desk-sealed-'));
    dirs.push(dir);
    const path = join(dir, 'vault.sealed-key');
    const sealer = safeStorageSealer(fakeSafeStorage({ async: true }), 'linux');
    const key = await new SealedKeyFileSource(path, sealer).key();
    expect(key).toHaveLength(32);
    expect(readFileSync(path, 'utf8')).toMatch(/^sealed:/);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect((await new SealedKeyFileSource(path, sealer).key()).equals(key)).toBe(true);
  });
});
