import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { KEY_BYTES, type KeySource } from './key-source';
import { VaultError } from './vault-error';

/** The attributes that name the vault key in the keyring. */
const ATTRIBUTES = ['application', 'portal-desk', 'purpose', 'vault-key'];
const LABEL = 'Portal Desk vault key';
/** Unlocking the keyring can show the desktop's password prompt; give the person time to answer it. */
const TIMEOUT_MS = 120_000;

type KeyringLookup = { found: Buffer } | { absent: true } | { unreachable: string };

/**
 * The key in the OS keyring (GNOME Keyring, KWallet, KeePassXC: any Secret Service) through
 * libsecret's `secret-tool`, stored base64 under application=portal-desk purpose=vault-key and
 * created on first use. The key never appears on a command line: it goes to `secret-tool store`
 * on standard input and comes back on standard output.
 */
export class SecretToolKeySource implements KeySource {
  readonly kind = 'keyring';
  readonly description: string;

  /** `command`: the secret-tool executable (found with `findOnPath`). */
  constructor(
    readonly command: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.description = `OS keyring (${command})`;
  }

  /** Asks the keyring for the key without creating one. */
  async lookup(): Promise<KeyringLookup> {
    const result = await this.run(['lookup', ...ATTRIBUTES]);
    if (result.code === 0 && result.stdout.trim()) {
      const key = Buffer.from(result.stdout.trim(), 'base64');
      if (key.length !== KEY_BYTES) {
        throw new VaultError('keyring', `The keyring entry "${LABEL}" is not a Portal Desk key (${key.length} bytes instead of ${KEY_BYTES}). Remove it with: secret-tool clear ${ATTRIBUTES.join(' ')}`);
      }
      return { found: key };
    }
    // secret-tool answers 1 and prints nothing when no item matches; it prints why when it failed.
    if (result.code === 1 && !result.stderr.trim()) return { absent: true };
    return { unreachable: oneLine(result.stderr) || result.error || `exit code ${result.code}` };
  }

  async key(): Promise<Buffer> {
    const first = await this.lookup();
    if ('found' in first) return first.found;
    if ('unreachable' in first) throw unreachable(first.unreachable);
    const stored = await this.run(['store', `--label=${LABEL}`, ...ATTRIBUTES], randomBytes(KEY_BYTES).toString('base64'));
    if (stored.code !== 0) throw unreachable(oneLine(stored.stderr) || stored.error || `exit code ${stored.code}`);
    // Read it back: if another process stored a key at the same moment, both use the one that stayed.
    const again = await this.lookup();
    if ('found' in again) return again.found;
    throw unreachable('the key just stored could not be read back');
  }

  private run(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string; error?: string }> {
    return new Promise((resolve) => {
      const child = execFile(this.command, args, { env: this.env, timeout: TIMEOUT_MS, encoding: 'utf8', maxBuffer: 64 * 1024 }, (err, stdout, stderr) => {
        const e = err as (NodeJS.ErrnoException & { killed?: boolean; code?: number | string }) | null;
        if (!e) return resolve({ code: 0, stdout, stderr });
        if (e.killed) return resolve({ code: -1, stdout, stderr, error: `no answer within ${TIMEOUT_MS / 1000} s` });
        resolve({ code: typeof e.code === 'number' ? e.code : -1, stdout, stderr, error: typeof e.code === 'string' ? e.code : undefined });
      });
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(input ?? '');
    });
  }
}

/** The first executable called `name` on PATH, or null. */
export async function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

function unreachable(why: string): VaultError {
  return new VaultError('keyring', `The OS keyring did not give the vault key: ${why}. Unlock the keyring (or start a desktop session) and try again.`);
}

function oneLine(text: string): string {
  return text.trim().split('\n').pop()?.trim() ?? '';
}
