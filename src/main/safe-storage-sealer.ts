import type { KeySealer } from '../vault';
import { PortalDeskError } from '../base/portal-desk-error';

/**
 * The vault key's sealer in the Electron app: Electron's `safeStorage` (the OS keychain:
 * libsecret or KWallet on Linux, Keychain on macOS, DPAPI on Windows). Typed against the parts
 * of `safeStorage` it uses, so it is tested under plain Node with a stand-in.
 *
 * Async first: Electron 45 deprecates `encryptString`/`decryptString` for
 * `encryptStringAsync`/`decryptStringAsync`. The Electron this app is built with (41) has only
 * the synchronous pair, so the sealer uses the async pair when the runtime has it and the
 * synchronous one otherwise. DEPRECATION NOTE: drop the synchronous path when Portal Desk
 * moves to Electron 45 or later.
 *
 * On Linux the `basic_text` backend is refused: it "encrypts" with a password hard-coded in
 * Chromium, which protects nothing. So is `unknown` (asked before the app was ready).
 */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  getSelectedStorageBackend?(): string;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  encryptStringAsync?(plainText: string): Promise<Buffer>;
  decryptStringAsync?(encrypted: Buffer): Promise<{ result: string; shouldReEncrypt: boolean }>;
  isAsyncEncryptionAvailable?(): Promise<boolean>;
}

export class SafeStorageRefused extends PortalDeskError {}

/** Builds the sealer, or refuses (with what to do) when safeStorage would not protect the key. */
export function safeStorageSealer(safeStorage: SafeStorageLike, platform: NodeJS.Platform = process.platform): KeySealer {
  let backend = platform;
  if (platform === 'linux') {
    const selected = safeStorage.getSelectedStorageBackend?.() ?? 'unknown';
    if (selected === 'basic_text') {
      throw new SafeStorageRefused(
        'Electron safeStorage would use its basic_text backend (a password built into Chromium, no real protection), so Portal Desk will not seal the vault key with it. ' +
          'Start Portal Desk in a desktop session with a keyring (GNOME Keyring or KWallet), or with --password-store=gnome-libsecret (or kwallet5/kwallet6). ' +
          'Nothing was written; the vault is unchanged.',
      );
    }
    if (selected === 'unknown') {
      throw new SafeStorageRefused('Electron safeStorage has not chosen its keyring yet (asked before the app was ready); the vault key was not sealed.');
    }
    backend = selected as NodeJS.Platform;
  }
  if (!safeStorage.isEncryptionAvailable()) {
    throw new SafeStorageRefused('Electron safeStorage says encryption is not available on this machine (no OS keychain reachable); the vault key was not sealed. Unlock or install the keyring and start Portal Desk again.');
  }
  const encryptAsync = safeStorage.encryptStringAsync?.bind(safeStorage);
  const decryptAsync = safeStorage.decryptStringAsync?.bind(safeStorage);
  const asyncApi = encryptAsync !== undefined && decryptAsync !== undefined;
  return {
    name: `Electron safeStorage (${backend})`,
    async seal(text: string): Promise<Buffer> {
      if (asyncApi) return encryptAsync(text);
      return safeStorage.encryptString(text);
    },
    async unseal(sealed: Buffer): Promise<{ text: string; reseal?: boolean }> {
      if (asyncApi) {
        const opened = await decryptAsync(sealed);
        return { text: opened.result, reseal: opened.shouldReEncrypt };
      }
      return { text: safeStorage.decryptString(sealed) };
    },
  };
}
