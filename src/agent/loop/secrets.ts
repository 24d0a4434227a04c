/**
 * Secrets a run must never write down or send: vault passwords, one-time codes, security
 * answers. Every record leaves the engine through `redact`.
 */
export class SecretList {
  private readonly values = new Set<string>();

  add(secret: string): void {
    if (secret.length >= 3) this.values.add(secret);
  }

  all(): string[] {
    return [...this.values];
  }

  /** A deep copy with every secret replaced by bullets. */
  redact<T>(value: T): T {
    if (this.values.size === 0) return value;
    return this.walk(value) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === 'string') {
      let out = value;
      for (const secret of this.values) if (out.includes(secret)) out = out.split(secret).join('••••••');
      return out;
    }
    if (Array.isArray(value)) return value.map((v) => this.walk(v));
    if (value && typeof value === 'object' && !(value instanceof Uint8Array)) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.walk(v)]));
    }
    return value;
  }
}
