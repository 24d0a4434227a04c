import { createHmac } from 'node:crypto';

/** AES-256 key length in bytes. */
export const KEY_BYTES = 32;

/**
 * Where the vault's 32-byte key comes from. Implementations: `KeyFileSource` (a 0600 file),
 * `SecretToolKeySource` (the OS keyring through libsecret's `secret-tool`) and
 * `SealedKeyFileSource` (a key sealed by the Electron shell's `safeStorage`).
 */
export interface KeySource {
  /** Stable name of the kind of source, recorded in the vault manifest: "file", "keyring", ... */
  readonly kind: string;
  /** For messages: where the key is kept ("key file /home/a/.local/share/portal-desk/vault.key"). Never the key. */
  readonly description: string;
  /** The key, created on first use where the source can create one. Always KEY_BYTES long. */
  key(): Promise<Buffer>;
}

/**
 * A short public name for a key: the first 16 hex digits of HMAC-SHA256(key, label). It tells
 * "sealed with another key" apart from "changed on disk" and reveals nothing about the key.
 */
export function keyId(key: Buffer): string {
  return createHmac('sha256', key).update('portal-desk/key-id/v1').digest('hex').slice(0, 16);
}

/**
 * The same source, asked once: the vault and the login-state store share one key without asking
 * the keyring twice. A failure is not remembered, so the next call asks again.
 */
export function rememberKey(source: KeySource): KeySource {
  let pending: Promise<Buffer> | null = null;
  return {
    kind: source.kind,
    description: source.description,
    key() {
      pending ??= source.key().catch((err: unknown) => {
        pending = null;
        throw err;
      });
      return pending;
    },
  };
}
