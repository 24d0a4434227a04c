import { escapeHtml } from './html';
import { PortalDeskError } from '../base/portal-desk-error';

/**
 * The exporters' last line of defence. The engine redacts passwords and one-time codes before
 * recording and the store refuses records that still hold a registered secret; before a report
 * or export leaves the process, its final text is scanned once more for the secrets the caller
 * knows (the client's stored portal password, say). A hit stops the export: nothing is written.
 */
export class SecretInReportError extends PortalDeskError {}

/** Shorter values would match ordinary text everywhere (the store ignores them too). */
const MIN_SCANNED_SECRET_LENGTH = 3;

/** Scans `text` and throws; the hook a caller may replace (e.g. to also scan for a hash of the secret). */
type SecretScan = (text: string, secrets: readonly string[], what: string) => void;

/**
 * Throws SecretInReportError when `text` holds any of `secrets` as written, HTML-escaped or
 * JSON-escaped. The message says where (offset) and which of the given secrets (by position),
 * never the value.
 */
export function assertNoSecrets(text: string, secrets: readonly string[], what = 'the report'): void {
  secrets.forEach((secret, n) => {
    if (secret.length < MIN_SCANNED_SECRET_LENGTH) return;
    for (const form of new Set([secret, escapeHtml(secret), JSON.stringify(secret).slice(1, -1)])) {
      const at = text.indexOf(form);
      if (at >= 0) {
        throw new SecretInReportError(
          `Refused to write ${what}: it contains secret #${n + 1} of ${secrets.length} given to the final scan (a stored password or code) at character ${at}. ` +
            'Nothing was written. The recorded run itself should never hold it: report this as a redaction bug.',
        );
      }
    }
  });
}

export interface SecretGuardOptions {
  /** Values that must not appear in what is written (stored passwords for the run's client and portal). */
  secrets?: readonly string[];
  /** Replaces `assertNoSecrets` as the final scan. */
  scan?: SecretScan;
}

/** Runs the final scan the caller asked for (none when no secrets are given). */
export function finalScan(text: string, options: SecretGuardOptions, what: string): string {
  const secrets = options.secrets ?? [];
  if (secrets.length > 0) (options.scan ?? assertNoSecrets)(text, secrets, what);
  return text;
}
