import { useState } from 'react';
import type { CaseSummary, PortalSummary, RunView } from '../../../shared/console-api';
import { useConsoleState, useModel } from '../console-context';
import { messageOf } from '../console-model';
import { CountSelect } from '../parts/count-select';
import { go, href } from '../route';
import { caseName, isLive, isWaiting, reasonLine, statusLook } from '../status';
import { StatusChip } from '../parts/chips';
import { OfficePanel } from '../parts/office-panel';
import { PlannerSelect } from '../parts/planner-select';
import { QueuePanel } from '../parts/queue-panel';
import { When } from '../parts/when';

/** A run's day as the Runs list shows it (the office's locale), for search. */
const DAY = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

/** The queue: runs with their status and one-line reason, and the case files ready to start. */
export function RunsScreen() {
  const state = useConsoleState();
  const [query, setQuery] = useState('');
  const [show, setShow] = useState<'all' | 'waiting' | 'live' | 'done' | 'not_done'>('all');
  const allRuns = [...state.runs.values()].sort((a, b) => b.run.startedAt.localeCompare(a.run.startedAt));
  const waiting = allRuns.filter(isWaiting);
  const words = query.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const matches = (...texts: (string | undefined)[]) => words.every((w) => texts.some((t) => (t ?? '').toLowerCase().includes(w)));
  const runs = allRuns.filter(
    (v) =>
      // A date finds the runs of that day: as ISO (2026-12-06) or as the list shows it.
      matches(caseName(v), v.run.caseId, v.run.clientId, v.run.portal, statusLook(v.run.status).label, v.run.id, v.run.startedAt.slice(0, 10), DAY.format(new Date(v.run.startedAt))) &&
      (show === 'all' ||
        (show === 'waiting' && isWaiting(v)) ||
        (show === 'live' && isLive(v)) ||
        (show === 'done' && v.run.status === 'done') ||
        (show === 'not_done' && !isLive(v) && v.run.status !== 'done')),
  );
  const cases = (state.cases ?? []).filter((c) => matches(c.displayName, c.caseId, c.clientId, c.portal, c.task));
  const portals = new Map((state.portals ?? []).map((p) => [p.id, p]));
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const toggle = (file: string) =>
    setSelected((before) => {
      const next = new Set(before);
      if (!next.delete(file)) next.add(file);
      return next;
    });
  const queues = [...state.queues.values()].reverse();

  return (
    <div className="screen runs-screen">
      {waiting.length > 0 && (
        <section className="waiting-strip" aria-label="Waiting for you">
          <h2>Waiting for you</h2>
          <ul>
            {waiting.map((v) => (
              <li key={v.run.id}>
                <a href={href({ name: 'run', runId: v.run.id })} className="waiting-link">
                  <strong>{caseName(v)}</strong> — {reasonLine(v)}
                  <span className="go">Open →</span>
                </a>
              </li>
            ))}
          </ul>
        </section>
      )}
      {queues.map((q) => (
        <QueuePanel key={q.id} queue={q} />
      ))}
      {state.office?.configured && <OfficePanel office={state.office} />}
      <div className="runs-filter" role="search">
        <input type="search" value={query} onChange={(e) => setQuery(e.target.value)} placeholder="Search by name, case, client, portal or status" aria-label="Search runs and case files" />
        <select value={show} onChange={(e) => setShow(e.target.value as typeof show)} aria-label="Show runs">
          <option value="all">All runs</option>
          <option value="waiting">Waiting for you</option>
          <option value="live">Working now</option>
          <option value="done">Done</option>
          <option value="not_done">Not done</option>
        </select>
      </div>
      <div className="runs-columns">
        <section className="panel" aria-label="Runs">
          <h2>Runs</h2>
          {allRuns.length === 0 ? <p className="empty">No runs yet. Start one from a case file.</p> : runs.length === 0 ? <p className="empty">No run matches.</p> : <RunTable runs={runs} />}
        </section>
        <section className="panel cases-panel" aria-label="Case files">
          <h2>Case files</h2>
          {state.cases === null ? (
            <p className="empty">Loading…</p>
          ) : state.cases.length === 0 ? (
            <p className="empty">No case files in the cases folder.</p>
          ) : cases.length === 0 ? (
            <p className="empty">No case file matches.</p>
          ) : (
            <>
              <QueueStarter cases={state.cases} selected={selected} onStarted={() => setSelected(new Set())} anthropicReady={!!state.model?.keyPresent} />
              <ul className="case-list">
                {cases.map((c) => (
                  <CaseRow
                    key={c.file}
                    summary={c}
                    portal={portals.get(c.portal)}
                    liveRun={runs.find((v) => isLive(v) && v.run.caseId === c.caseId)}
                    anthropicReady={!!state.model?.keyPresent}
                    selected={selected.has(c.file)}
                    onSelect={() => toggle(c.file)}
                  />
                ))}
              </ul>
            </>
          )}
        </section>
      </div>
    </div>
  );
}

function RunTable({ runs }: { runs: RunView[] }) {
  return (
    <table className="run-table">
      <thead>
        <tr>
          <th>Status</th>
          <th>Case</th>
          <th>Where it is</th>
          <th>Steps</th>
          <th>Started</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {runs.map((v) => (
          <tr key={v.run.id} className={isWaiting(v) ? 'row-waiting' : undefined} data-run={v.run.id}>
            <td>
              <StatusChip status={v.run.status} />
            </td>
            <td>
              <a href={href({ name: 'run', runId: v.run.id })} className="case-link">
                {caseName(v)}
              </a>
              <div className="sub">
                {v.run.caseId} · {v.run.portal}
              </div>
            </td>
            <td className="reason" title={reasonLine(v)}>
              {reasonLine(v)}
            </td>
            <td>{v.run.stepCount}</td>
            <td>
              <When iso={v.run.startedAt} />
            </td>
            <td className="row-links">
              <a href={href({ name: 'run', runId: v.run.id })}>Open</a>
              {!isLive(v) && <a href={href({ name: 'replay', runId: v.run.id })}>Replay</a>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * The day's queue from the case files: the ones ticked, or every case file of a folder, run as a
 * batch (at most N at once, one run per client and portal at a time).
 */
function QueueStarter({ cases, selected, onStarted, anthropicReady }: { cases: readonly CaseSummary[]; selected: ReadonlySet<string>; onStarted: () => void; anthropicReady: boolean }) {
  const model = useModel();
  const folders = [...new Set(cases.map((c) => (c.file.includes('/') ? c.file.slice(0, c.file.lastIndexOf('/')) : '')))].sort();
  const [folder, setFolder] = useState(folders[0] ?? '');
  const [concurrency, setConcurrency] = useState(2);
  const [planner, setPlanner] = useState<'rules' | 'anthropic'>('rules');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const start = async (what: { files: string[] } | { folder: string }) => {
    setBusy(true);
    setProblem(null);
    try {
      model.showQueue(await model.api.startQueue({ ...what, concurrency, planner }));
      onStarted();
      window.scrollTo({ top: 0 });
    } catch (err) {
      setProblem(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  const inFolder = cases.filter((c) => (c.file.includes('/') ? c.file.slice(0, c.file.lastIndexOf('/')) : '') === folder).length;
  return (
    <div className="queue-starter" aria-label="Run as a queue">
      <div className="queue-starter-row">
        <CountSelect label="At once" ariaLabel="Cases at once" value={concurrency} onChange={setConcurrency} />
        <PlannerSelect className="inline-label" value={planner} onChange={setPlanner} ariaLabel="Planner for the queue" anthropicReady={anthropicReady} />
        <button type="button" className="btn btn-primary" disabled={busy || selected.size === 0} onClick={() => void start({ files: [...selected] })}>
          {selected.size === 0 ? 'Tick case files to queue them' : `Run ${selected.size} as a queue`}
        </button>
      </div>
      <div className="queue-starter-row">
        <select value={folder} onChange={(e) => setFolder(e.target.value)} aria-label="Folder to queue">
          {folders.map((f) => (
            <option key={f} value={f}>
              {f === '' ? 'the cases folder' : `folder ${f}`}
            </option>
          ))}
        </select>
        <button type="button" className="btn btn-secondary" disabled={busy || inFolder === 0} onClick={() => void start({ folder })}>
          Run the folder ({inFolder})
        </button>
      </div>
      {problem && <p className="problem">{problem}</p>}
    </div>
  );
}

function CaseRow({
  summary,
  portal,
  liveRun,
  anthropicReady,
  selected,
  onSelect,
}: {
  summary: CaseSummary;
  portal: PortalSummary | undefined;
  liveRun: RunView | undefined;
  anthropicReady: boolean;
  selected: boolean;
  onSelect: () => void;
}) {
  const model = useModel();
  const [planner, setPlanner] = useState<'rules' | 'anthropic'>('rules');
  const [layout, setLayout] = useState<'original' | 'redesigned'>('original');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  // The layout of a lab portal is chosen here only on the console's own lab (another process's lab is set by its owner).
  const layoutChoice = portal?.layouts ?? false;

  const start = async () => {
    setBusy(true);
    setProblem(null);
    try {
      const { runId } = await model.api.startRun({ file: summary.file, planner, ...(layoutChoice ? { layout } : {}) });
      await model.loadRun(runId).catch(() => undefined);
      go({ name: 'run', runId });
    } catch (err) {
      setProblem(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <li className={`case-row${summary.problem ? ' case-broken' : ''}${selected ? ' case-selected' : ''}`} data-case={summary.caseId}>
      <div className="case-title">
        {!summary.problem && <input type="checkbox" className="case-tick" checked={selected} onChange={onSelect} aria-label={`Queue ${summary.caseId}`} />}
        <span className="case-id">{summary.displayName ?? summary.caseId}</span>
      </div>
      <div className="sub">
        {summary.caseId} · {portal?.name ?? summary.portal} · {summary.task}
      </div>
      {summary.problem ? (
        <p className="problem">
          Cannot run: {summary.problem} <span className="file">({summary.file})</span>
        </p>
      ) : (
        <div className="start-row">
          <PlannerSelect value={planner} onChange={setPlanner} ariaLabel={`Planner for ${summary.caseId}`} anthropicReady={anthropicReady} />
          {layoutChoice && (
            <label>
              Lab layout
              <select value={layout} onChange={(e) => setLayout(e.target.value as 'original' | 'redesigned')} aria-label={`Layout for ${summary.caseId}`}>
                <option value="original">original</option>
                <option value="redesigned">redesigned</option>
              </select>
            </label>
          )}
          {liveRun ? (
            <a className="btn btn-secondary" href={href({ name: 'run', runId: liveRun.run.id })}>
              Running — open
            </a>
          ) : (
            <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void start()} aria-label={`Start ${summary.caseId}`}>
              {busy ? 'Starting…' : 'Start run'}
            </button>
          )}
        </div>
      )}
      {problem && <p className="problem">{problem}</p>}
    </li>
  );
}
