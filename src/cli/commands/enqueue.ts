import { existsSync } from 'node:fs';
import { loadBatchEntries } from '../../service/batch-entries';
import type { CaseFile } from '../../shared/case-file';
import { defaultDbPath } from '../../store';
import { parseCommandArgs, positiveInt, shownArg } from '../args';
import { EXIT, UsageError } from '../cli-error';
import { officeUrl, openOfficeQueue, openOfficeStore } from './office-store';

const HELP = `portal-desk enqueue DIR|FILE... [options]

Puts case files on the office's queue (every *.json of a folder, or the files given), for the
desks running "portal-desk worker" to take one at a time. Needs PORTAL_DESK_DATABASE_URL (the
office's PostgreSQL database). A case file that cannot be used is reported in one line and the
others are queued. A case already done in the office store is not run again.

  --monthly DAY               do not queue now: queue each case on DAY (1-28) of every month, its case id
                              followed by the month (case-2026-12); a monthly return
  --at HH:MM                  with --monthly, the time of day (UTC; default 06:00)
  --json                      print what was queued as JSON on stdout

Exit code 0 when every case file was queued; 1 when some could not be; 2 on bad options, no case
file, or an office database that cannot be used.`;

export async function enqueueCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { monthly: { type: 'string' }, at: { type: 'string' }, json: { type: 'boolean' } }, true);
  if (values.help) {
    console.log(HELP);
    return EXIT.ok;
  }
  if (positionals.length === 0) throw new UsageError('give a folder of case files or case files (see "portal-desk enqueue --help")');
  const day = values.monthly === undefined ? undefined : positiveInt('monthly', values.monthly, 1, 28);
  if (values.at !== undefined && day === undefined) throw new UsageError('--at goes with --monthly');
  const at = /^(\d{2}):(\d{2})$/.exec(values.at ?? '06:00');
  if (!at || Number(at[1]) > 23 || Number(at[2]) > 59) throw new UsageError(`--at takes HH:MM (got "${shownArg(values.at ?? '')}")`);
  const missing = positionals.find((p) => !existsSync(p));
  if (missing !== undefined) throw new UsageError(`no such file or folder: ${shownArg(missing)}`);
  const entries = loadBatchEntries(positionals);
  const good = entries.filter((e): e is { source: string; caseFile: CaseFile } => 'caseFile' in e);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  for (const e of entries) if ('problem' in e) log(`REFUSED ${e.problem.startsWith(e.source) ? e.problem : `${e.source}: ${e.problem}`}`);
  if (good.length === 0) throw new UsageError(`no case file that can run in ${positionals.join(', ')}`);

  const url = officeUrl('enqueue');
  // The store opens first: it creates (or upgrades) the office schema the workers read.
  const store = await openOfficeStore(url, defaultDbPath());
  await store.close();
  const queue = await openOfficeQueue(url, { log });
  try {
    if (day !== undefined) {
      const scheduled = [];
      for (const entry of good) {
        const s = await queue.scheduleMonthly(entry, { day, hour: Number(at[1]), minute: Number(at[2]) });
        scheduled.push({ caseId: entry.caseFile.caseId, source: entry.source, schedule: s.name, cron: s.cron });
        log(`scheduled ${entry.caseFile.caseId}: every month on day ${day} at ${at[0]} UTC (${s.name})`);
      }
      if (values.json) console.log(JSON.stringify({ scheduled }, null, 2));
    } else {
      const ids = await queue.enqueue(good);
      log(`queued ${ids.length} case file(s) on the office queue; ${JSON.stringify(await queue.counts())}`);
      if (values.json) console.log(JSON.stringify({ queued: good.map((e, i) => ({ caseId: e.caseFile.caseId, source: e.source, jobId: ids[i] })) }, null, 2));
    }
  } finally {
    await queue.close();
  }
  return good.length === entries.length ? EXIT.ok : EXIT.notDone;
}
