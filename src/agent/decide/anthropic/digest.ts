import { digest as sha256Digest } from '../../../base/canonical-json';

/** `sha256:<hex>` of the canonical JSON: what `ModelCall` keeps instead of payloads. */
export function digest(value: unknown): string {
  return `sha256:${sha256Digest(value)}`;
}
