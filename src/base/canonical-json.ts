import { createHash } from 'node:crypto';

/**
 * Canonical JSON: object keys sorted recursively, no whitespace, `undefined` members dropped.
 * Two equal records always give the same bytes, so their hashes can be chained and compared.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : sortKeys(v)));
  if (value instanceof Uint8Array) throw new TypeError('canonicalJson: binary data must be hashed, not embedded');
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const member = (value as Record<string, unknown>)[key];
      if (member !== undefined) out[key] = sortKeys(member);
    }
    return out;
  }
  return value;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** sha256 of the canonical JSON of a value. */
export function digest(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
