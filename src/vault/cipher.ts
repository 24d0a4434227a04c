import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { KEY_BYTES } from './key-source';

export const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** One AES-256-GCM message, base64 for JSON. */
interface SealedBytes {
  iv: string;
  tag: string;
  ciphertext: string;
}

/**
 * Encrypts with a fresh random 12-byte IV. `associated` is authenticated but not encrypted: it
 * binds the ciphertext to the record it belongs to.
 */
export function sealBytes(key: Buffer, associated: string, plaintext: Buffer): SealedBytes {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(CIPHER, key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(associated, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), ciphertext: ciphertext.toString('base64') };
}

/** The plaintext, or null when the tag does not check out (other key, other associated data, changed bytes). */
export function openBytes(key: Buffer, associated: string, sealed: SealedBytes): Buffer | null {
  checkKey(key);
  const iv = Buffer.from(sealed.iv, 'base64');
  const tag = Buffer.from(sealed.tag, 'base64');
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) return null;
  const decipher = createDecipheriv(CIPHER, key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(associated, 'utf8'));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]);
  } catch {
    return null;
  }
}

function checkKey(key: Buffer): void {
  if (key.length !== KEY_BYTES) throw new RangeError(`an AES-256 key is ${KEY_BYTES} bytes, not ${key.length}`);
}
