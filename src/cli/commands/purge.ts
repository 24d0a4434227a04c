import { formatBytes, parseAge, planPurge } from '../../audit';
import { defaultDbPath } from '../../store';
import { parseCommandArgs } from '../args';
import { EXIT, UsageError } from '../cli-error';
import { openDeskStore } from '../store-opening';

const HELP = `portal-desk purge --older-than AGE [--db PATH] [--dry-run]

Retention: for runs that ENDED longer ago than AGE, drops their screenshots and raw model
payloads. Step records, their hashes, approvals and the audit trail are kept, so "portal-desk
verify" still passes on purged runs (screenshots show as purged, their hashes stay in the chain).
A screenshot that a newer run also shows keeps its bytes. Runs that never ended are not touched.

  --older-than AGE   90d, 36h or 30m (days, hours, minutes)
  --db PATH          the run store (default: ${defaultDbPath()})
  --dry-run          count what would be dropped; change nothing
  --json             print the counts as JSON

Exit code 0 purged (or counted); 2 bad options or a store that cannot be opened.`;

export async function purgeCommand(args: string[]): Promise<number> {
  const { values } = parseCommandArgs(args, { 'older-than': { type: 'string' }, db: { type: 'string' }, 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } });
  if (values.help) {
    console.log(HELP);
    return EXIT.ok;
  }
  if (values['older-than'] === undefined) throw new UsageError('--older-than AGE is required, e.g. --older-than 90d (d days, h hours, m minutes)');
  const age = parseAge(values['older-than']);
  if (!age) throw new UsageError(`--older-than takes a whole number and a unit: 90d, 36h or 30m (got "${values['older-than'].slice(0, 40)}")`);
  const dbPath = values.db ?? defaultDbPath();
  // A dry run only reads; a purge writes (and refuses a store it cannot write, in one line).
  const store = await openDeskStore(dbPath, values['dry-run'] ? 'read' : 'write', { mustExist: true });
  try {
    const now = new Date();
    if (values['dry-run']) {
      const plan = await planPurge(store, { olderThanMs: age.ms, now });
      if (values.json) console.log(JSON.stringify({ dryRun: true, ...plan }, null, 2));
      else {
        console.log(
          `dry run: ${plural(plan.runs, 'run')} ended before ${plan.cutoff} (${age.text} ago). ` +
            `A purge would drop ${plural(plan.screenshots, 'screenshot')} (${formatBytes(plan.screenshotBytes)}) and ${plural(plan.modelPayloads, 'model payload')}. Nothing was changed.`,
        );
      }
      return EXIT.ok;
    }
    const result = await store.purge({ olderThanMs: age.ms, now });
    if (values.json) console.log(JSON.stringify({ dryRun: false, ...result }, null, 2));
    else {
      console.log(
        `purged runs that ended before ${result.cutoff} (${age.text} ago): ${plural(result.screenshots, 'screenshot')} dropped (${formatBytes(result.screenshotBytes)}), ` +
          `${plural(result.modelPayloads, 'model payload')} deleted; ${plural(result.runs, 'run')} purged for the first time.`,
      );
      console.log('  Step records, hashes, approvals and the audit trail are kept: "portal-desk verify RUN_ID" still passes on purged runs.');
    }
    return EXIT.ok;
  } finally {
    store.close();
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
