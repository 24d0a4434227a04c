import { existsSync, lstatSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  evidenceFromExport,
  finalScan,
  formatBytes,
  loadRunEvidence,
  looksLikeExportFile,
  readRunExportFile,
  renderReportHtml,
  replayJson,
  runExportText,
  RunNotFoundError,
  SecretInReportError,
  writeOwnerOnly,
  type Replay,
  type RunEvidence,
} from '../../audit';
import { loadPortalProfile } from '../../agent/case/portal-profiles';
import { DemoLoader } from '../demo-portals';
import { defaultDbPath, RunExportFormatError } from '../../store';
import { dataFolder, defaultVaultDir, openVault } from '../../vault';
import { parseCommandArgs, shownArg } from '../args';
import { EXIT, UsageError } from '../cli-error';
import { openDeskStore } from '../store-opening';
import { verdictLines } from './verify';

const HELP = `portal-desk replay RUN_ID [--db PATH] [options]
portal-desk replay FILE [options]

Replays a recorded run for an auditor: every step in order with its page, screenshot, reasoning,
actions, the guard's verdicts, approvals, where typed values came from, events and tokens, plus
whether the record is intact. Without an output option, prints the steps as text.

  RUN_ID                a run in the store
  FILE                  a run export written by --export-json (ends in .json, or is a file)
  --db PATH             the run store (default: ${defaultDbPath()})
  --export FILE.html    write the report: one offline HTML file (styles and screenshots inline,
                        no scripts, no requests), readable in any browser
  --export-json FILE    write the run's verifiable export (check it with "portal-desk verify FILE")
  --json                print the replay as JSON on stdout

Files are written owner-only (they hold client details). Before anything is written, its text is
scanned for the client's stored portal password; a hit writes nothing.
The store is opened read-only (nothing is written to it; a store on read-only media works).
Exit status: 0 written/printed and the chain is intact, 1 the chain is broken (the report is still
written, with the break marked), 2 no such run or file, or a store that cannot be opened,
3 refused by the secret scan.`;

const EXIT_SECRET = 3;

export async function replayCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    args,
    { db: { type: 'string' }, export: { type: 'string' }, 'export-json': { type: 'string' }, json: { type: 'boolean' } },
    true,
  );
  if (values.help) {
    console.log(HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError(`give one RUN_ID or FILE to replay (got ${positionals.length}); see "portal-desk replay --help"`);
  const target = positionals[0]!;
  for (const [flag, path] of [['export', values.export], ['export-json', values['export-json']]] as const) {
    if (path !== undefined) checkWritable(flag, path);
  }

  const evidence = await loadEvidence(target, values.db, values['export-json']);
  const { replay } = evidence;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const secrets = await knownSecrets(replay.run.clientId, replay.run.portal, log);

  try {
    // Everything is rendered and scanned before the first file is written.
    const outputs: { path: string; text: string; what: string }[] = [];
    if (values.export !== undefined) {
      const text = renderReportHtml(replay, { secrets, screenshot: (hash) => evidence.screenshots.get(hash) });
      outputs.push({ path: values.export, text, what: `report (${replay.steps.length} steps, ${formatBytes(Buffer.byteLength(text))})` });
    }
    if (values['export-json'] !== undefined) {
      const text = runExportText(evidence.export, { secrets });
      outputs.push({ path: values['export-json'], text, what: `run export (${replay.steps.length} steps, ${formatBytes(Buffer.byteLength(text))}; check it with "portal-desk verify ${values['export-json']}")` });
    }
    const json = values.json ? replayJson(replay, { secrets }) : undefined;
    const text = json === undefined && outputs.length === 0 ? finalScan(`${textLines(replay).join('\n')}\n`, { secrets }, 'the replay text') : undefined;
    for (const out of outputs) {
      writeOwnerOnly(out.path, out.text);
      log(`wrote ${out.path}: ${out.what}`);
    }
    if (json !== undefined) process.stdout.write(json);
    if (text !== undefined) process.stdout.write(text);
  } catch (err) {
    if (err instanceof SecretInReportError) {
      log(`portal-desk replay: ${err.message}`);
      return EXIT_SECRET;
    }
    throw err;
  }

  const verdict = verdictLines(replay.verify, `run ${replay.run.id}`);
  if (values.json || values.export !== undefined || values['export-json'] !== undefined) log(verdict[0]!);
  return replay.verify.ok ? EXIT.ok : EXIT.notDone;
}

async function loadEvidence(target: string, db: string | undefined, exportJson: string | undefined): Promise<RunEvidence> {
  if (looksLikeExportFile(target)) {
    if (db !== undefined) throw new UsageError(`${target} is an export file; --db applies to a RUN_ID`);
    if (exportJson !== undefined) throw new UsageError(`${target} is already a run export; --export-json applies to a RUN_ID in the store`);
    try {
      return evidenceFromExport(readRunExportFile(target), target);
    } catch (err) {
      if (err instanceof RunExportFormatError) throw new UsageError(err.message);
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new UsageError(`no such file: ${target.slice(0, 300)}`);
      throw err;
    }
  }
  const store = await openDeskStore(db ?? defaultDbPath(), 'read');
  try {
    return await loadRunEvidence(store, target);
  } catch (err) {
    if (err instanceof RunNotFoundError) throw new UsageError(err.message);
    throw err;
  } finally {
    store.close();
  }
}

function checkWritable(flag: string, path: string): void {
  // The file is written beside itself and renamed into place (a link there is replaced, never followed), so its folder must be one.
  const folder = dirname(path);
  if (!existsSync(folder)) throw new UsageError(`--${flag} ${shownArg(path)}: there is no folder ${shownArg(folder)} to write it in`);
  if (!statSync(folder).isDirectory()) throw new UsageError(`--${flag} ${shownArg(path)}: ${shownArg(folder)} is not a folder`);
  if (!existsSync(path)) return;
  const stat = lstatSync(path);
  if (stat.isDirectory()) throw new UsageError(`--${flag} ${path} is a folder; give a file name`);
  // A FIFO or a device would block the write or take the report somewhere no one reads it.
  if (!stat.isFile() && !stat.isSymbolicLink()) throw new UsageError(`--${flag} ${path} is not a regular file; give a file name`);
}

/**
 * Passwords this run's client uses on this portal, for the final scan: the lab's demo login for
 * lab portals, and the vault's stored login when a vault exists. Never printed.
 */
async function knownSecrets(clientId: string, portal: string, log: (line: string) => void): Promise<string[]> {
  const secrets: string[] = [];
  const demo = new DemoLoader();
  const profile = (() => {
    try {
      return loadPortalProfile(portal);
    } catch {
      return undefined; // a portal this desk has no profile for is no demo portal
    }
  })();
  if (profile) await demo.prepare([profile]);
  const lab = await demo.credentials.get(clientId, portal);
  if (lab) secrets.push(lab.password);
  if (existsSync(defaultVaultDir(dataFolder()))) {
    try {
      const { vault } = await openVault();
      const stored = await vault.get(clientId, portal);
      if (stored) secrets.push(stored.password);
    } catch (err) {
      log(`note: the vault could not be opened (${(err as Error).message.split('\n')[0]}); the final secret scan ran without its stored password for ${clientId} on ${portal}`);
    }
  }
  return secrets;
}

/** The replay as terminal text: a header, then each step with its actions. */
function textLines(replay: Replay): string[] {
  const r = replay.run;
  const lines = [
    `run ${r.id} — case ${r.caseId}, client ${r.clientId}, portal ${r.portal}, task ${r.task}`,
    `planner ${r.planner}${r.model ? ` (${r.model})` : ''}, approvals ${r.approveMode}; ${r.status}${r.reason ? `: ${r.reason}` : ''}${r.applicationNumber ? ` [${r.applicationNumber}]` : ''}`,
    ...verdictLines(replay.verify, replay.source.path ?? r.id),
    '',
  ];
  for (const s of replay.steps) {
    if (s.kind !== 'step') {
      lines.push(`#${s.index} UNREADABLE: ${s.problem}`);
      continue;
    }
    const mark = s.integrity === 'broken' ? ' [CHAIN BROKEN HERE]' : s.integrity === 'unverified' ? ' [not verified]' : '';
    const tokens = s.model?.usage ? ` — tokens in ${s.model.usage.inputTokens} out ${s.model.usage.outputTokens}` : '';
    lines.push(`#${s.index} ${s.startedAt} ${s.page.flowStep ?? s.page.headings[0] ?? s.page.title} <${s.page.url}>${tokens}${mark}`);
    if (s.screenshot) lines.push(`   screenshot ${s.screenshot.sha256.slice(0, 16)}… (${s.screenshot.state})`);
    for (const e of s.events) lines.push(`   · ${e.type}: ${e.message}`);
    for (const a of s.actions) {
      const p = a.provenance ? ` ← ${a.provenance.source}:${a.provenance.field}` : '';
      const approval = a.approval ? ` [${a.approval.decision === 'approve' ? 'approved' : 'denied'} by ${a.approval.by} at ${a.approval.at}]` : '';
      lines.push(`   ${a.summary}${p} → ${a.verdict.verdict} (${a.verdict.rule})${approval} → ${a.outcome.status}${a.outcome.message ? ` (${a.outcome.message})` : ''}`);
    }
  }
  const u = replay.totals.usage;
  lines.push('', `totals: ${replay.totals.steps} steps, ${replay.totals.actions} actions, ${replay.totals.approvals} approved, ${replay.totals.denials} denied, tokens in ${u.inputTokens} out ${u.outputTokens}, $${u.costUsd}`);
  return lines;
}
