import { PortalDeskError } from '../base/portal-desk-error';

/**
 * The store's last line of defence for secrets. By contract the engine redacts vault passwords,
 * one-time codes and security answers before it records anything; the engine also registers
 * them here, and any write that still carries one is refused whole.
 */
export class SecretRefusedError extends PortalDeskError {}

/** Shorter values would match ordinary text everywhere (the engine's redaction skips them too). */
const MIN_SECRET_LENGTH = 3;

export class SecretGuard {
  private readonly everywhere = new Set<string>();
  private readonly byRun = new Map<string, Set<string>>();

  /** Registers a secret for one run's writes, or for every write when no run is given. */
  register(secret: string, runId?: string): void {
    if (secret.length < MIN_SECRET_LENGTH) return;
    if (runId === undefined) {
      this.everywhere.add(secret);
      return;
    }
    const set = this.byRun.get(runId) ?? new Set<string>();
    set.add(secret);
    this.byRun.set(runId, set);
  }

  /** Forgets a run's secrets (the run has ended: nothing more is written for it). */
  release(runId: string): void {
    this.byRun.delete(runId);
  }

  /**
   * Throws SecretRefusedError when any string (value or key) in `value` contains a secret
   * registered globally or for `runId` (null: secrets of every run). The message names where,
   * never what.
   */
  check(value: unknown, runId: string | null, what: string): void {
    const secrets = this.secretsFor(runId);
    if (secrets.length === 0) return;
    const where = findSecret(value, secrets, '');
    if (where !== null) {
      throw new SecretRefusedError(
        `Refused to write ${what}: ${where || 'the value'} contains a registered secret (a password, one-time code or security answer). ` +
          'Nothing was written. The engine must redact secrets before recording.',
      );
    }
  }

  private secretsFor(runId: string | null): string[] {
    const out = [...this.everywhere];
    if (runId === null) for (const set of this.byRun.values()) out.push(...set);
    else out.push(...(this.byRun.get(runId) ?? []));
    return out;
  }
}

function findSecret(value: unknown, secrets: readonly string[], path: string): string | null {
  if (typeof value === 'string') return secrets.some((s) => value.includes(s)) ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findSecret(value[i], secrets, `${path}[${i}]`);
      if (hit !== null) return hit;
    }
    return null;
  }
  if (value && typeof value === 'object' && !(value instanceof Uint8Array)) {
    for (const [key, member] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      if (secrets.some((s) => key.includes(s))) return `a key at ${path || 'the top level'}`;
      const hit = findSecret(member, secrets, at);
      if (hit !== null) return hit;
    }
  }
  return null;
}
