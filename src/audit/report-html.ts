import type { OutcomeStatus } from '../shared/outcome';
import type { RunStatus, StepEvent, TokenUsage } from '../shared/run';
import { TraceRecord } from '../shared/trace';
import type { VerdictKind } from '../shared/verdict';
import { html, trusted, type SafeHtml } from './html';
import { otherEvents } from '../shared/step-log';
import type { Replay, ReplayAction, ReplayAuditEvent, ReplayEntry, ReplayScreenshot, ReplayStep, UnreadableStep } from './replay';
import { REPORT_CSS } from './report-style';
import { formatBytes } from './retention';
import { finalScan, type SecretGuardOptions } from './secret-scan';

/**
 * The run report: ONE self-contained HTML file an auditor opens offline. Style inline,
 * screenshots inline as data: URIs, no script at all, and a Content-Security-Policy that forbids
 * every request except data: images — so even text that slipped past escaping could not fetch or
 * run anything. Every string from the run is escaped by the `html` template.
 */
export const REPORT_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'";

interface ReportOptions extends SecretGuardOptions {
  /** The PNG for a screenshot hash (only bytes that match their hash should be given). */
  screenshot?: (sha256: string) => Uint8Array | null | undefined;
  /** The office's locale and time zone for times shown (default: this machine's); UTC is in each time's tooltip. */
  locale?: string;
  timeZone?: string;
}

/** The one time format of a report, set for the duration of one (synchronous) render. */
let timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** Renders the report and runs the final secret scan over it (throws SecretInReportError on a hit). */
export function renderReportHtml(replay: Replay, options: ReportOptions = {}): string {
  const shot = options.screenshot ?? (() => null);
  const run = replay.run;
  timeFormat = new Intl.DateTimeFormat(options.locale, { dateStyle: 'medium', timeStyle: 'medium', ...(options.timeZone ? { timeZone: options.timeZone } : {}) });
  const zone = timeFormat.resolvedOptions().timeZone;
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="Portal Desk run report">
<title>Run report · ${run.caseId} · ${run.id}</title>
<style>${trusted(REPORT_CSS)}</style>
</head>
<body>
<div class="layout">
${stepIndex(replay, shot)}
<main>
${summary(replay)}
<h2 class="section" id="timeline">Timeline · ${plural(replay.steps.length, 'step')}</h2>
${replay.steps.map((s) => (s.kind === 'step' ? stepSection(s, replay, shot) : unreadableSection(s)))}
${outcomeSection(replay)}
${approvalsSection(replay)}
${auditTrailSection(replay.auditTrail, replay.verify.format === 2)}
${integritySection(replay)}
<footer class="page">Generated ${dateTime(replay.generatedAt)} by Portal Desk from ${replay.source.kind === 'store' ? 'the run store' : 'an exported run file'}. Times are shown in ${zone}; hover one for UTC.</footer>
</main>
</div>
</body>
</html>
`;
  return finalScan(page.text, options, 'the HTML report');
}

/** `run-….html`: the run id is made of safe characters; anything else is replaced. */
export function reportFileName(replay: Replay, extension = 'html'): string {
  return `${replay.run.id.replace(/[^A-Za-z0-9._-]/g, '_')}.${extension}`;
}

// ---- Index --------------------------------------------------------------------------------------

function stepIndex(replay: Replay, shot: NonNullable<ReportOptions['screenshot']>): SafeHtml {
  return html`<nav class="index" aria-label="Step index">
<p class="index-title">Steps</p>
<ol>
${replay.steps.map((s) => {
  const marks = stepMarks(s);
  return html`<li class="${s.integrity === 'verified' ? '' : s.integrity}"><a href="#step-${s.index}"><span class="n">${s.index}</span><span class="t">${s.kind === 'step' ? thumbnail(s, shot) : ''}${s.kind === 'step' ? stepTitle(s) : 'Unreadable step'}${s.kind === 'step' ? html`<span class="d">${duration(s.durationMs)}</span>` : ''}</span><span class="marks">${marks.map(
    (m) => html`<span class="mark ${m.tone}" title="${m.label}"></span>`,
  )}</span></a></li>`;
})}
</ol>
<div class="extra">
<a href="#summary">Summary</a>
<a href="#outcome">Final outcome</a>
${replay.approvals.length ? html`<a href="#approvals">Approvals (${replay.approvals.length})</a>` : ''}
<a href="#audit-trail">Audit trail</a>
<a href="#integrity">Integrity</a>
</div>
<p class="legend"><span class="mark warn"></span>approval asked<br><span class="mark bad"></span>blocked, denied, failed, or chain broken<br><span class="mark info"></span>sign-in, code or page event</p>
</nav>`;
}

function stepMarks(s: ReplayEntry): { tone: 'warn' | 'bad' | 'info'; label: string }[] {
  if (s.kind !== 'step') return [{ tone: 'bad', label: 'unreadable step' }];
  const marks: { tone: 'warn' | 'bad' | 'info'; label: string }[] = [];
  if (s.integrity === 'broken') marks.push({ tone: 'bad', label: 'chain broken here' });
  if (s.actions.some((a) => a.verdict.verdict === 'needs_approval')) marks.push({ tone: 'warn', label: 'approval asked' });
  if (s.actions.some((a) => a.verdict.verdict === 'block' || BAD_OUTCOMES.includes(a.outcome.status))) marks.push({ tone: 'bad', label: 'blocked, denied or failed action' });
  const stopped = (s.requests ?? []).filter((r) => r.outcome !== 'sent');
  if (stopped.length) marks.push({ tone: 'bad', label: `${plural(stopped.length, 'request')} stopped` });
  const shown = otherEvents(s.events);
  if (shown.length) marks.push({ tone: eventTone(shown) === 'bad' ? 'bad' : 'info', label: shown.map((e) => humanise(e.type)).join(', ') });
  return marks;
}

// ---- Summary ------------------------------------------------------------------------------------

function summary(replay: Replay): SafeHtml {
  const run = replay.run;
  const t = replay.totals;
  const usage = t.usage;
  return html`<header class="summary" id="summary">
<p class="eyebrow">Portal Desk · Run report</p>
<h1>${humanise(run.task)} — ${run.clientId}</h1>
<p class="subtitle">Case <b>${run.caseId}</b> on portal <b>${run.portal}</b> · run <span class="mono">${run.id}</span></p>
${verifyBanner(replay)}
${run.approveMode !== 'ask' ? approveModeBanner(run.approveMode) : ''}
<div class="outcome-card">
<div class="status-row"><span class="chip big ${statusTone(run.status)}">${humanise(run.status)}</span><span class="reason">${run.reason ? withoutLocalPaths(run.reason) : 'No reason recorded'}</span></div>
${run.applicationNumber ? html`<p class="appno">Application number<b>${run.applicationNumber}</b></p>` : ''}
</div>
<dl class="facts">
${fact('Case', run.caseId)}
${fact('Client', run.clientId)}
${fact('Portal', run.portal, run.layout ? `layout ${run.layout}` : undefined)}
${fact('Task', run.task)}
${fact('Planner', run.planner, run.planner === 'rules' ? 'offline rule-based filler (not AI)' : undefined)}
${fact('Model', run.model ?? (t.modelCalls === 0 ? 'none' : 'not recorded'), plural(t.modelCalls, 'model call'))}
${fact('Approvals', approveModeText(run.approveMode), `${t.approvals} approved, ${t.denials} denied`)}
${fact('Started', dateTime(run.startedAt))}
${fact('Ended', run.endedAt ? dateTime(run.endedAt) : 'not ended', run.endedAt ? `took ${duration(Date.parse(run.endedAt) - Date.parse(run.startedAt))}` : undefined)}
${fact('Steps', String(t.steps), `${plural(t.actions, 'action')}: ${t.verdicts.allow} allowed, ${t.verdicts.needs_approval} needed approval, ${t.verdicts.block} blocked`)}
${fact('Tokens', `${num(usage.inputTokens)} in · ${num(usage.outputTokens)} out`, `${num(usage.cacheReadTokens)} cached reads · cost ${money(usage.costUsd)}`)}
${fact('Screenshots', `${t.screenshots.present} shown`, screenshotNote(t.screenshots))}
</dl>
</header>`;
}

function fact(label: string, value: string | SafeHtml, sub?: string): SafeHtml {
  return html`<div><dt>${label}</dt><dd>${value}${sub ? html`<span class="sub">${sub}</span>` : ''}</dd></div>`;
}

function verifyBanner(replay: Replay): SafeHtml {
  const v = replay.verify;
  if (v.ok) {
    const shots = `${plural(v.checkedScreenshots, 'screenshot')} checked against their hashes${v.purgedScreenshots ? `, ${v.purgedScreenshots} purged by retention (hash kept)` : ''}`;
    const what = v.format === 2 ? `${plural(v.steps, 'step')}, ${plural(v.events ?? 0, 'audit event')} and the outcome verified` : `${plural(v.steps, 'step')} verified (older chain format: steps only)`;
    return html`<div class="banner ok" role="status"><span class="icon">✓</span><strong>Chain intact — ${what}, nothing edited since recording</strong>
<span class="detail">${shots}. Head hash <span class="hash">${v.headHash ?? '(no steps)'}</span>. A whole chain rewritten from its genesis is told apart only by a head kept elsewhere (see Integrity).</span></div>`;
  }
  return html`<div class="banner bad" role="alert"><span class="icon">✗</span><strong>Chain BROKEN at ${v.brokenStep < replay.steps.length ? html`<a href="#step-${v.brokenStep}">step ${v.brokenStep}</a>` : `the run's head (after step ${v.brokenStep - 1})`} — this record was changed after it was written</strong>
<span class="detail">${v.problem}. Steps before it verify; the chain cannot vouch for anything from it on. Recorded head <span class="hash">${replay.chain.headHash ?? '(none)'}</span></span></div>`;
}

function approveModeBanner(mode: string): SafeHtml {
  return html`<div class="banner warn"><span class="icon">!</span><strong>Gated actions were ${mode === 'all' ? 'approved' : 'denied'} automatically (--approve ${mode})</strong>
<span class="detail">No person decided on them. This mode is for demos and tests only.</span></div>`;
}

function approveModeText(mode: string): string {
  return mode === 'ask' ? 'asked the clerk' : mode === 'all' ? 'all automatic (demo)' : 'none: denied automatically (demo)';
}

function screenshotNote(s: Replay['totals']['screenshots']): string {
  const parts = [s.purged ? `${s.purged} purged by retention` : '', s.missing ? `${s.missing} missing` : '', s.altered ? `${s.altered} altered` : '', s.none ? `${s.none} steps without one` : ''];
  return parts.filter(Boolean).join(' · ') || 'one per step';
}

// ---- Steps --------------------------------------------------------------------------------------

/** The page's own heading (the portal's "Step 2 of 4" is shown apart, so it is not confused with the run's step numbers). */
function stepTitle(s: ReplayStep): string {
  return s.page.headings[0] || s.page.title || s.page.url;
}

function stepSection(s: ReplayStep, replay: Replay, shot: NonNullable<ReportOptions['screenshot']>): SafeHtml {
  const p = s.page;
  const title = stepTitle(s);
  return html`<section class="step ${s.integrity === 'verified' ? '' : s.integrity}" id="step-${s.index}" aria-labelledby="step-${s.index}-h">
<div class="step-head">
<h2 id="step-${s.index}-h"><span class="step-n">Step ${s.index}</span>${title}</h2>
<span class="step-meta">${dateTime(s.startedAt)} · ${duration(s.durationMs)} · ${plural(p.controls, 'control')}${integrityChip(s.integrity)}</span>
</div>
<p class="url">${p.flowStep ? html`<span class="chip grey">Portal: ${p.flowStep}</span> ` : ''}${p.url}</p>
${s.problem ? html`<div class="banner bad problem" role="alert"><span class="icon">✗</span><strong>${s.problem}</strong></div>` : ''}
<div class="step-body">
${picturesBlock(s, shot)}
<div class="step-info">
<div><h3>Page</h3><p>${p.title || html`<span class="none">(no title)</span>`}</p>${
    p.headings.length && !(p.headings.length === 1 && p.headings[0] === title)
      ? html`<p class="small muted">Headings: ${p.headings.join(' · ')}</p>`
      : ''
  }${p.hasPasswordField ? html`<p class="small muted">Has a password box (sign-in is done by code; the box is masked in the screenshot)</p>` : ''}</div>
${p.errors.length ? html`<div><h3>Errors on the page</h3><ul class="plain errors">${p.errors.map((e) => html`<li>${e.message}${e.field ? html` <span class="muted small">(${e.field})</span>` : ''}</li>`)}</ul></div>` : ''}
<div><h3>Reasoning</h3><p class="reasoning">${s.reasoning || '(none recorded)'}</p></div>
${pageErrorsBlock(s)}
${eventsBlock(s.events)}
<div><h3>Model</h3>${modelLine(s, replay.run.planner)}</div>
</div>
</div>
${requestsBlock(s)}
${fullPageFigure(s, shot)}
${s.actions.length ? actionsTable(s.actions) : html`<p class="muted small no-actions">No actions: ${s.model ? 'the planner proposed none' : 'code handled this page; the model was not asked'}.</p>`}
<details class="page-text"><summary>Page text as read (${plural(p.text.length, 'character')}${p.textTruncated ? ', trimmed to the read budget' : ''})</summary><pre>${p.text}</pre></details>
<p class="step-foot">step hash ${s.chainHash ?? '(none)'} · observation ${s.observationHash}</p>
</section>`;
}

function integrityChip(integrity: ReplayStep['integrity']): SafeHtml | string {
  if (integrity === 'broken') return html` · <span class="chip bad">chain broken here</span>`;
  if (integrity === 'unverified') return html` · <span class="chip warn">not verified</span>`;
  return '';
}

/** The step's before and after pictures, side by side. */
function picturesBlock(s: ReplayStep, shot: NonNullable<ReportOptions['screenshot']>): SafeHtml {
  if (s.after === undefined) return html`<div class="pictures">${pictureFigure(s.screenshot, shot, `Screenshot at step ${s.index}: ${s.page.title}`, 'Screenshot taken with the page read', 'No screenshot was taken at this step.')}</div>`;
  return html`<div class="pictures two">${pictureFigure(s.screenshot, shot, `Before step ${s.index}: ${s.page.title}`, 'Before: the page as read, before the actions', 'No before picture was taken at this step.')}${pictureFigure(
    s.after,
    shot,
    `After step ${s.index}`,
    'After: once the actions ran and the page settled',
    'No after picture was taken at this step (the page was gone or did not settle).',
  )}</div>`;
}

/** The whole page at a gated step, in a box that scrolls (no script: the report has none). */
function fullPageFigure(s: ReplayStep, shot: NonNullable<ReportOptions['screenshot']>): SafeHtml | string {
  if (!s.fullPage) return '';
  return html`<div class="fullpage-block"><h3>Full page at this gated step</h3>${pictureFigure(s.fullPage, shot, `The whole page at step ${s.index}`, 'The whole page, top to bottom, as the clerk was asked about it (scroll inside the box)', '', 'fullpage')}</div>`;
}

/** The step's picture, small, for the index's filmstrip (the same bytes as the step's own: a report carries no script to shrink them). */
function thumbnail(s: ReplayStep, shot: NonNullable<ReportOptions['screenshot']>): SafeHtml {
  const info = s.screenshot;
  const png = info && info.state === 'present' ? shot(info.sha256) : null;
  if (!png) return html`<span class="thumb none" aria-hidden="true"></span>`;
  return html`<img class="thumb" src="${pngDataUri(png)}" alt="" loading="lazy">`;
}

function pngDataUri(png: Uint8Array): string {
  return `data:image/png;base64,${Buffer.from(png.buffer, png.byteOffset, png.byteLength).toString('base64')}`;
}

function pictureFigure(info: ReplayScreenshot | null | undefined, shot: NonNullable<ReportOptions['screenshot']>, alt: string, caption: string, none: string, kind = 'shot'): SafeHtml {
  if (!info) return html`<p class="no-shot">${none}</p>`;
  const png = info.state === 'present' ? shot(info.sha256) : null;
  if (png) {
    const size = info.width && info.height ? `${info.width}×${info.height}` : '';
    const img = html`<img src="${pngDataUri(png)}" alt="${alt}"${
      info.width && info.height ? html` width="${info.width}" height="${info.height}"` : ''
    }>`;
    return html`<figure class="${kind}">${kind === 'fullpage' ? html`<div class="scroll" tabindex="0">${img}</div>` : img}<figcaption>${caption} · ${size} · sha256 <span class="mono">${info.sha256.slice(0, 16)}…</span></figcaption></figure>`;
  }
  const why: Record<string, string> = {
    present: 'The picture was not supplied to the report.',
    purged: 'Picture purged by retention. Its hash stays in the chain.',
    missing: 'Picture missing: it was not purged, yet its bytes are gone.',
    altered: 'Picture not shown: its bytes do not match the hash the chain recorded.',
  };
  return html`<p class="no-shot ${info.state === 'missing' || info.state === 'altered' ? 'bad' : ''}">${caption}: ${why[info.state]}<br><span class="mono">sha256 ${info.sha256.slice(0, 16)}…</span></p>`;
}

/** What the egress lock, the network lock and the commit gate let through or refused in this step, with the rule. */
function requestsBlock(s: ReplayStep): SafeHtml | string {
  const lines = s.requests ?? [];
  const hidden = s.requestsHidden ?? 0;
  if (lines.length === 0 && hidden === 0) return '';
  const sent = lines.reduce((n, l) => n + (l.outcome === 'sent' ? (l.count ?? 1) : 0), 0);
  const stopped = lines.reduce((n, l) => n + (l.outcome === 'sent' ? 0 : (l.count ?? 1)), 0);
  const note = hidden ? html`<p class="small muted">${plural(hidden, 'browser-internal request')} refused (Chromium’s own background traffic, not the page or the agent): left out of view, kept in the run’s raw log.</p>` : '';
  return html`<div class="requests-block"><h3>Requests · ${String(sent)} let through, ${String(stopped)} stopped</h3>${
    lines.length
      ? html`<table class="requests"><thead><tr><th>Time</th><th>Outcome</th><th>Request</th><th>Judged by</th><th>Rule</th></tr></thead><tbody>${lines.map(
          (l) => html`<tr class="${l.outcome}"><td class="small">${dateTime(l.at)}</td><td><span class="chip ${l.outcome === 'sent' ? 'ok' : 'bad'}">${l.outcome === 'sent' ? 'let through' : l.outcome}</span></td><td><span class="mono">${l.method ?? ''} ${l.url ?? ''}</span>${(l.count ?? 1) > 1 ? html` <b class="count">×${String(l.count)}</b>` : ''}<span class="why">${withoutLocalPaths(l.message)}</span></td><td>${l.by}</td><td><code>${l.rule}</code></td></tr>`,
        )}</tbody></table>`
      : ''
  }${note}</div>`;
}

/** The page's own errors: script errors, console errors, loads that failed. */
function pageErrorsBlock(s: ReplayStep): SafeHtml | string {
  const errors = s.pageErrors ?? [];
  if (errors.length === 0) return '';
  return html`<div><h3>Page errors</h3><ul class="plain events page-errors">${errors.map((e) => html`<li><span class="ev-head"><span class="chip warn">${e.kind}</span> ${dateTime(e.at)}</span><span class="ev-msg">${withoutLocalPaths(e.message)}</span></li>`)}</ul></div>`;
}

function modelLine(s: ReplayStep, planner: string): SafeHtml {
  const m = s.model;
  if (!m) {
    return html`<p class="muted small">${
      planner === 'rules' ? 'No model call: the offline rule-based planner or the engine decided this step.' : 'No model call: the engine handled this page (sign-in, one-time code, bot check) without asking the model.'
    }</p>`;
  }
  const u = m.usage;
  return html`<p class="small tokens">${m.planner}${m.model ? html` · <span class="mono">${m.model}</span>` : ''} · ${duration(m.ms)}${
    u ? html` · ${usageText(u)}` : ' · no token usage'
  }</p>${m.imageSent ? html`<p class="small muted">Screenshot sent to the model${m.imageReason ? `: ${m.imageReason}` : ''}</p>` : ''}${
    m.requestDigest || m.responseDigest
      ? html`<p class="small muted mono">request ${m.requestDigest?.slice(0, 16) ?? '—'}… · response ${m.responseDigest?.slice(0, 16) ?? '—'}…</p>`
      : ''
  }`;
}

function usageText(u: TokenUsage): string {
  return `${num(u.inputTokens)} in (+${num(u.cacheReadTokens)} cached) · ${num(u.outputTokens)} out · ${money(u.costUsd)}`;
}

function eventItem(e: StepEvent): SafeHtml {
  return html`<li><span class="ev-head"><span class="chip ${eventTone([e])}">${humanise(e.type)}</span> ${dateTime(e.at)}</span><span class="ev-msg">${withoutLocalPaths(e.message)}</span></li>`;
}

/** The step's events, without Chromium's own background requests (counted; they stay in the raw log and the export). */
function eventsBlock(events: readonly StepEvent[]): SafeHtml | string {
  // Requests and page errors have their own panes; browser-internal noise is counted there.
  const shown = otherEvents(events);
  if (shown.length === 0) return '';
  return html`<div><h3>Events</h3><ul class="plain events">${shown.map(eventItem)}</ul></div>`;
}

/**
 * Local file-system paths (the store, the receipt folder) name the clerk's machine, not the
 * run: a report shows the file's name only.
 */
function withoutLocalPaths(text: string): string {
  return text
    .replace(/(?<![\w.:/])(?:~|\/)(?:[^\s,;:()"'/]+\/)+([^\s,;:()"'/]+)/g, '…/$1')
    .replace(/\b[A-Za-z]:\\(?:[^\s,;:()"'\\]+\\)+([^\s,;:()"'\\]+)/g, '…\\$1');
}

const BLOCKING_EVENTS = /blocked|denied|challenge|failed/;
function eventTone(events: readonly StepEvent[]): 'bad' | 'warn' | 'info' | 'grey' {
  if (events.some((e) => BLOCKING_EVENTS.test(e.type))) return 'bad';
  if (events.some((e) => /closed|dismissed/.test(e.type))) return 'warn';
  if (events.some((e) => /sign_in|otp/.test(e.type))) return 'info';
  return 'grey';
}

function actionsTable(actions: readonly ReplayAction[]): SafeHtml {
  return html`<table class="actions">
<colgroup><col class="c-i"><col class="c-what"><col class="c-value"><col class="c-guard"><col class="c-approval"><col class="c-outcome"></colgroup>
<thead><tr><th></th><th>Action</th><th>Value from</th><th>Guard</th><th>Approval</th><th>Outcome</th></tr></thead>
<tbody>
${actions.map(
  (a) => html`<tr class="${a.verdict.verdict}">
<td class="i">${a.index + 1}</td>
<td class="what">${actionText(a)}</td>
<td>${provenanceCell(a)}</td>
<td><span class="chip ${verdictTone(a.verdict.verdict)}">${VERDICT_LABEL[a.verdict.verdict]}</span><span class="rule">${a.verdict.rule}</span><span class="why">${withoutLocalPaths(a.verdict.reason)}</span></td>
<td>${approvalCell(a)}</td>
<td><span class="chip ${outcomeTone(a.outcome.status)}">${humanise(a.outcome.status)}</span> <span class="ms">${duration(a.outcome.ms)}</span>${a.outcome.message ? html`<span class="why">${withoutLocalPaths(a.outcome.message)}</span>` : ''}</td>
</tr>`,
)}
</tbody>
</table>`;
}

/** The verb and the control; for fill/select the field goes in the "Value from" column instead. */
function actionText(a: ReplayAction): string {
  const target = a.element ?? ('ref' in a.action ? a.action.ref : '');
  if (a.action.type === 'fill') return `fill ${target}`;
  if (a.action.type === 'select') return `select in ${target}`;
  return a.summary;
}

function provenanceCell(a: ReplayAction): SafeHtml {
  const p = a.provenance;
  if (!p) return html`<span class="none">—</span>`;
  if (p.document) return html`<span class="value">${p.document.file}</span><span class="why">case document <code>${p.field}</code>, ${String(p.document.bytes)} bytes, sha256 <code>${p.document.sha256}</code></span>`;
  const from = p.source === 'case' ? 'case field' : p.source === 'clerk' ? 'clerk’s answer for' : 'one-time code for';
  const format = p.format ? html`<span class="why">written as <code>${p.format}</code></span>` : '';
  const value = p.withheld ? html`<span class="value none">value withheld (secret)</span>` : p.value !== undefined ? html`<span class="value">“${p.value}”</span>` : '';
  return html`${value}<span class="why">${from} <code>${p.field}</code></span>${format}`;
}

function approvalCell(a: ReplayAction): SafeHtml {
  const ap = a.approval;
  if (!ap) return a.verdict.verdict === 'needs_approval' ? html`<span class="chip warn">not decided</span>` : html`<span class="none">—</span>`;
  return html`<span class="chip ${ap.decision === 'approve' ? 'ok' : 'bad'}">${ap.decision === 'approve' ? 'approved' : 'denied'}</span><span class="why">by <b>${ap.by}</b> at ${dateTime(ap.at)}</span>${
    ap.note ? html`<span class="why">“${ap.note}”</span>` : ''
  }`;
}

function unreadableSection(s: UnreadableStep): SafeHtml {
  return html`<section class="step broken" id="step-${s.index}" aria-labelledby="step-${s.index}-h">
<div class="step-head"><h2 id="step-${s.index}-h"><span class="step-n">Step ${s.index}</span>Unreadable step</h2></div>
<div class="banner bad problem" role="alert"><span class="icon">✗</span><strong>${s.problem}</strong></div>
<p class="step-foot">step hash ${s.chainHash ?? '(none)'}</p>
</section>`;
}

// ---- After the timeline -------------------------------------------------------------------------

function outcomeSection(replay: Replay): SafeHtml {
  const run = replay.run;
  const t = replay.totals;
  const outcomes = (Object.entries(t.outcomes) as [OutcomeStatus, number][]).filter(([, n]) => n > 0);
  return html`<section id="outcome"><h2 class="section">Final outcome</h2>
<div class="outcome-card">
<div class="status-row"><span class="chip big ${statusTone(run.status)}">${humanise(run.status)}</span><span class="reason">${run.reason ? withoutLocalPaths(run.reason) : 'No reason recorded'}</span></div>
${run.applicationNumber ? html`<p class="appno">Application number<b>${run.applicationNumber}</b></p>` : ''}
<p class="small muted totals">${plural(t.steps, 'step')} · ${plural(t.actions, 'action')} (${outcomes.map(([k, n]) => `${n} ${humanise(k)}`).join(', ') || 'none'}) · ${plural(t.approvals, 'approval')}, ${plural(t.denials, 'denial')} · ${plural(t.modelCalls, 'model call')} · tokens ${usageText(t.usage)}</p>
${traceLine(replay)}
</div></section>`;
}

/**
 * The run's Playwright trace (`run --trace`), as its chained outcome record names it: kept beside
 * the store (`traces/RUN.zip`, linked relative to the store's `reports/` folder, where the console
 * saves reports), or dropped with the reason. Its name only: never where the store lies.
 */
function traceLine(replay: Replay): SafeHtml | string {
  const outcome = replay.auditTrail.findLast((e) => e.type === 'outcome')?.set?.outcome as { trace?: unknown } | undefined;
  const trace = TraceRecord.safeParse(outcome?.trace);
  if (!trace.success) return '';
  if (!trace.data.kept) return html`<p class="small trace">Playwright trace: <b>not kept</b> — ${withoutLocalPaths(trace.data.reason)}.</p>`;
  const t = trace.data;
  return html`<p class="small trace">Playwright trace: <a href="../${t.file}">${t.file}</a> beside the run store (${formatBytes(t.bytes)}, ${plural(t.files, 'file')} scanned for the run’s secrets) · <span class="mono">sha256 ${t.sha256}</span>, in the chained outcome record · open it with <code>npx playwright-core show-trace ${t.file}</code></p>`;
}

function approvalsSection(replay: Replay): SafeHtml | string {
  if (replay.approvals.length === 0) return '';
  return html`<section id="approvals"><h2 class="section">Approvals</h2>
<div class="card"><table class="plain">
<thead><tr><th>Step</th><th>Action</th><th>Asked by rule</th><th>Decision</th><th>By</th><th>At</th></tr></thead>
<tbody>${replay.approvals.map(
    (a) => html`<tr><td><a href="#step-${a.step}">${a.step}</a></td><td>${a.summary}<span class="why">${a.reason}</span></td><td><code>${a.rule}</code></td><td><span class="chip ${a.decision === 'approve' ? 'ok' : 'bad'}">${a.decision === 'approve' ? 'approved' : 'denied'}</span>${a.note ? html`<span class="why">“${a.note}”</span>` : ''}</td><td>${a.by}</td><td class="when">${dateTime(a.at)}</td></tr>`,
  )}</tbody>
</table></div></section>`;
}

function auditTrailSection(trail: readonly ReplayAuditEvent[], covered: boolean): SafeHtml {
  return html`<section id="audit-trail"><h2 class="section">Audit trail</h2>
<div class="card"><p class="small muted">${
    covered ? 'Run-level events as the store logged them: each is a record of the run’s hash chain, with the values it set.' : 'Run-level events as the store logged them (older chain format: not covered by the chain).'
  }</p>
<table class="plain">
<thead><tr><th title="${covered ? 'The record’s place in the run’s hash chain' : 'The store’s sequence number'}">#</th><th>At</th><th>Event</th><th>Status</th><th>Reason / detail</th></tr></thead>
<tbody>${trail.map(
    (e) => html`<tr><td class="num">${e.pos ?? e.seq}</td><td class="when">${dateTime(e.at)}</td><td>${humanise(e.type)}</td><td>${
      e.fromStatus || e.toStatus ? html`${e.fromStatus ? humanise(e.fromStatus) : '—'} → ${e.toStatus ? html`<span class="chip ${statusTone(e.toStatus)}">${humanise(e.toStatus)}</span>` : '—'}` : ''
    }</td><td>${e.reason ? withoutLocalPaths(e.reason) : ''}${e.detail ? html`<span class="why mono">${withoutLocalPaths(JSON.stringify(e.detail))}</span>` : ''}</td></tr>`,
  )}</tbody>
</table></div></section>`;
}

function integritySection(replay: Replay): SafeHtml {
  return html`<section id="integrity"><h2 class="section">Integrity</h2>
<div class="card integrity">
<p>Each record is chained to the one before it by SHA-256, starting from the run's genesis. Changing any recorded fact, or any screenshot, breaks the chain from that record on. This HTML file is a reading copy; the evidence is the run store or its JSON export (<code>portal-desk replay ${replay.run.id} --export-json run.json</code>), which <code>portal-desk verify run.json</code> checks offline.</p>
${replay.verify.ok ? html`<p class="small"><b>${replay.verify.format === 1 ? 'Older chain format (1): covers only' : 'The chain covers'}</b></p><ul class="plain small">${replay.verify.covers.map((c) => html`<li>${c}</li>`)}</ul><p class="small"><b>It cannot prove:</b> ${replay.verify.cannot}</p>` : ''}
<p class="small muted">${replay.chain.definition}</p>
<table class="plain">
<tbody>
<tr><th>Genesis</th><td class="hash">${replay.chain.genesisHash}</td></tr>
<tr><th>Head</th><td class="hash">${replay.chain.headHash ?? '(no steps)'}</td></tr>
<tr><th>Verdict</th><td>${replay.verify.ok ? html`<span class="chip ok">intact</span> ${plural(replay.verify.steps, 'step')}` : html`<span class="chip bad">broken</span> ${replay.verify.problem}`}</td></tr>
</tbody>
</table>
<table class="plain hashes">
<thead><tr><th>Step</th><th>Step hash</th><th>Chain</th></tr></thead>
<tbody>${replay.steps.map(
    (s) => html`<tr><td><a href="#step-${s.index}">${s.index}</a></td><td class="hash">${s.chainHash ?? '(none)'}</td><td>${
      s.integrity === 'verified' ? html`<span class="chip ok">verified</span>` : s.integrity === 'broken' ? html`<span class="chip bad">broken</span>` : html`<span class="chip warn">not verified</span>`
    }</td></tr>`,
  )}</tbody>
</table>
</div></section>`;
}

// ---- Words and tones ----------------------------------------------------------------------------

const VERDICT_LABEL: Record<VerdictKind, string> = { allow: 'allow', needs_approval: 'needs approval', block: 'block' };
const BAD_OUTCOMES: readonly OutcomeStatus[] = ['denied', 'blocked', 'error', 'unknown_ref'];

function verdictTone(v: VerdictKind): string {
  return v === 'allow' ? 'allow' : v === 'needs_approval' ? 'warn' : 'bad';
}

function outcomeTone(s: OutcomeStatus): string {
  if (BAD_OUTCOMES.includes(s)) return 'bad';
  if (s === 'needs_approval') return 'warn';
  return s === 'done' ? 'allow' : 'grey';
}

function statusTone(s: RunStatus): string {
  if (s === 'done') return 'ok';
  if (s === 'failed' || s === 'blocked') return 'bad';
  if (s === 'interrupted' || s === 'awaiting_approval' || s === 'awaiting_input') return 'warn';
  return 'info';
}

function humanise(id: string): string {
  const words = id.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function plural(n: number, word: string): string {
  return `${num(n)} ${word}${n === 1 ? '' : 's'}`;
}

function num(n: number): string {
  return n.toLocaleString('en-US');
}

function money(usd: number): string {
  return usd === 0 ? '$0' : `$${usd < 0.01 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** The report's one time format: the office's locale and zone, with UTC in the tooltip. */
function dateTime(iso: string): SafeHtml | string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const s = d.toISOString();
  return html`<time datetime="${s}" title="${s.slice(0, 10)} ${s.slice(11, 19)} UTC">${timeFormat.format(d)}</time>`;
}
