import type { Page } from 'playwright-core';
import { z } from 'zod';
import { digest, sha256Hex } from '../../base/canonical-json';
import { errorText } from '../../base/error-text';
import { isAllowedUrl } from '../../shared/allowed-hosts';
import type { CaseFile, ReadTask } from '../../shared/case-file';
import type { InputSource } from '../../shared/clerk';
import type { CredentialSource, LoginStateStore } from '../../shared/credentials';
import type { Observation } from '../../shared/observation';
import type { PortalProfile } from '../../shared/portal-profile';
import { describeReadResult, READ_RESULT_EVENT, type ExtractResult, type ReadResult, type StatusResult } from '../../shared/read-result';
import type { RunRecorder } from '../../shared/recorder';
import type { ModelCall, RunStatus, StepEvent, StepRecord } from '../../shared/run';
import { extract, type ExtractOptions } from '../decide/extract';
import { PlannerError } from '../decide/planner';
import { egressLockOf } from '../guard/browser';
import type { CommitGate } from '../guard/commit-gate';
import { SecretList } from '../loop/secrets';
import type { Observer, PageRead } from '../observe/page-read';
import { maskedScreenshot } from '../observe/page-picture';
import { findApplicationInList } from '../portal/applications-list';
import { detectBotChallenge } from '../portal/bot-check';
import { enterOneTimeCode, findOneTimeCodeField, maskCode } from '../portal/one-time-code';
import { keepConfirmationPage } from '../portal/receipt';
import { isSignInPage, signIn } from '../portal/sign-in';
import { applicationRows } from './applications-table';
import { firstMatch, linearPattern } from '../../shared/linear-pattern';

/**
 * A read-only task: the case's `read` (kind `status` or `extract`) asks what the portal says,
 * not for anything to be done on it. Code signs in (from the vault, as for any run), goes to the
 * applications list or the named page itself, reads it once, and one extraction (code's rules, or
 * one model call through `extract`) turns the page into a typed {@link ReadResult}. No action is
 * proposed and no control of the task's page is touched: there is no planner loop, the guard's
 * read-only rule refuses every action of such a case, and the commit gate refuses every request
 * that could commit something (nothing is asked, nothing is sent). Each read is recorded as a step,
 * so the run replays and reports like any other; the last step carries the result.
 */

export type ReadExtractor = { kind: 'rules' } | { kind: 'model'; options: ExtractOptions };

interface ReadTaskOptions {
  runId: string;
  page: Page;
  profile: PortalProfile;
  caseFile: CaseFile;
  observer: Observer;
  recorder: RunRecorder;
  inputs: InputSource;
  credentials: CredentialSource;
  gate: CommitGate;
  extractor: ReadExtractor;
  loginStates?: LoginStateStore;
  receipts?: ReadReceiptKeeper;
  listener?: { step?(step: StepRecord): void; status?(status: RunStatus, reason: string | undefined): void; log?(line: string): void };
  firstStep?: number;
  now?: () => Date;
}

/** Where an acknowledgement read by an `extract` task is kept (the run loop's receipt folder). */
interface ReadReceiptKeeper {
  keep(receipt: { bytes: Uint8Array; contentType: string; url: string; kind: 'receipt_link' | 'confirmation_page'; sha256: string; runId: string; applicationNumber: string }): Promise<string>;
}

export interface ReadTaskResult {
  status: 'done' | 'failed' | 'blocked' | 'interrupted';
  reason: string;
  applicationNumber?: string;
  steps: number;
  approvals: 0;
  result?: ReadResult;
}

/** Pages read before the task gives up reaching its page (sign-in, a code, the page itself). */
const MAX_READS = 6;

class ReadEnd extends Error {
  constructor(readonly end: Omit<ReadTaskResult, 'steps' | 'approvals'>) {
    super(end.reason);
  }
}

/** What the model is asked for a status: nullable everywhere, so "not on the page" can be said. */
const StatusAnswer = z.strictObject({
  applicationNumber: z.string().nullable(),
  status: z.string().nullable().describe('The status exactly as the list writes it'),
  reference: z.string().nullable(),
  submittedOn: z.string().nullable(),
});
const PageAnswer = z.strictObject({
  applicationNumber: z.string().nullable(),
  reference: z.string().nullable(),
});

export class ReadOnlyTask {
  private readonly secrets = new SecretList();
  private readonly events: StepEvent[] = [];
  private readonly now: () => Date;
  private step: number;
  private signIns = 0;

  constructor(private readonly o: ReadTaskOptions) {
    this.now = o.now ?? (() => new Date());
    this.step = o.firstStep ?? 0;
    // A read-only task sends nothing that commits: every request the gate would hold is refused, unasked.
    o.gate.setJudge({
      approve: async () => ({ decision: 'deny', by: 'read-only task', note: 'a read-only task sends nothing that commits' }),
      origin: () => ({ origin: 'not_from_case' }),
      beforeSubmission: async () => ({ send: false, reason: 'a read-only task submits nothing' }),
    });
    o.gate.onRecord((record) => this.note(record.type, record.detail));
  }

  private get read(): ReadTask {
    const read = this.o.caseFile.read;
    if (!read) throw new Error(`case ${this.o.caseFile.caseId} is not a read-only task (it has no "read")`);
    return read;
  }

  /** Something code or the browser saw (a refused download, a sign-in): it goes in the next step. */
  note(type: string, message: string): void {
    const redacted = this.secrets.redact(message);
    this.events.push({ type, message: redacted, at: this.now().toISOString() });
    this.o.listener?.log?.(`  ! ${type}: ${redacted}`);
  }

  addSecret(secret: string): void {
    this.secrets.add(secret);
    this.o.recorder.registerSecret(secret, this.o.runId);
  }

  async run(): Promise<ReadTaskResult> {
    const first = this.step;
    this.o.listener?.log?.(`read-only ${this.read.kind} task: ${this.o.extractor.kind === 'model' ? 'one model extraction' : 'code reads the page (rules)'}; no control is touched`);
    let end: Omit<ReadTaskResult, 'steps' | 'approvals'>;
    try {
      end = await this.reachAndRead();
    } catch (err) {
      if (err instanceof ReadEnd) end = err.end;
      else if (err instanceof PlannerError) end = { status: err.kind === 'unavailable' || err.kind === 'refusal' || err.kind === 'max_tokens' ? 'interrupted' : 'failed', reason: `The extraction call failed: ${err.message}` };
      else end = { status: 'failed', reason: `Read stopped by an error: ${errorText(err)}` };
    }
    const reason = this.secrets.redact(end.reason);
    await this.o.recorder.updateRun(this.o.runId, { status: end.status, reason, applicationNumber: end.applicationNumber, endedAt: end.status === 'interrupted' ? undefined : this.now().toISOString() });
    this.o.listener?.status?.(end.status, reason);
    return { ...end, reason, steps: this.step - first, approvals: 0 };
  }

  /** Where the task reads: the applications list (status, or extract without a page) or the named page. */
  private target(): string {
    const read = this.read;
    const base = this.o.profile.startUrl;
    if (read.kind === 'extract' && read.page) {
      const path = read.page.replaceAll('{applicationNumber}', encodeURIComponent(read.applicationNumber ?? ''));
      return new URL(path, base).href;
    }
    if (!this.o.profile.applicationsUrl) {
      throw new ReadEnd({ status: 'failed', reason: `The portal profile ${this.o.profile.id} names no applicationsUrl, so there is no applications list to read` });
    }
    return this.o.profile.applicationsUrl;
  }

  private async reachAndRead(): Promise<Omit<ReadTaskResult, 'steps' | 'approvals'>> {
    const target = this.target();
    const allowed = isAllowedUrl(target, this.o.profile);
    if (!allowed.ok) throw new ReadEnd({ status: 'failed', reason: `${target} is not on the portal (${allowed.reason}); nothing was read` });
    this.note('navigation', `Opening ${target} to read it`);
    await this.goto(target);
    for (let reads = 0; reads < MAX_READS; reads += 1) {
      await this.o.gate.idle();
      const startedAt = this.now().toISOString();
      const read = await this.o.observer.read(this.o.page);
      const observation = this.secrets.redact(read.observation);
      const screenshot = await this.screenshot();
      const record = (reasoning: string, model: ModelCall | null = null) => this.record({ startedAt, observation, screenshot, reasoning, model });

      const challenge = detectBotChallenge(this.o.page, observation);
      if (challenge) {
        this.note('bot_challenge', `The portal shows ${challenge}. Over to the clerk: solve it in the portal, then start the task again.`);
        await record('Bot check detected by code; nothing is read past it.');
        throw new ReadEnd({ status: 'blocked', reason: `bot_challenge: ${challenge}` });
      }
      if (isSignInPage(observation, this.o.profile)) {
        await this.signInByCode(read);
        await record('Sign-in page: code signs in from stored credentials, then opens the page to read.');
        await this.goto(target);
        continue;
      }
      const codeField = findOneTimeCodeField(observation, this.o.profile);
      if (codeField) {
        await this.oneTimeCode(read, codeField);
        await record('One-time code page: the clerk typed the code; code entered it.');
        await this.goto(target);
        continue;
      }
      if (!samePage(observation.url, target)) {
        this.note('navigation', `The portal showed ${observation.url}, not ${target}; opening it again`);
        await record('Not the page to read yet: code opens it.');
        await this.goto(target);
        continue;
      }
      await this.saveLoginState();
      const { result, model, reasoning } = await this.extractFrom(read, observation);
      this.note(READ_RESULT_EVENT, JSON.stringify(result));
      await record(reasoning, model);
      return { status: 'done', reason: describeReadResult(result), applicationNumber: result.applicationNumber ?? undefined, result };
    }
    throw new ReadEnd({ status: 'failed', reason: `The page to read (${target}) did not open after ${MAX_READS} reads` });
  }

  private async extractFrom(read: PageRead, observation: Observation): Promise<{ result: ReadResult; model: ModelCall | null; reasoning: string }> {
    const task = this.read;
    const html = await this.o.page.content();
    if (task.kind === 'status') return this.status(task, observation, html);
    return this.extractPage(task, read, observation);
  }

  /** Which application the status is of: the one the case names, else the case's own row on the list. */
  private wantedNumber(task: ReadTask, html: string): string {
    if (task.applicationNumber) return task.applicationNumber;
    const values = Object.values(this.o.caseFile.fields).filter((v): v is string => typeof v === 'string');
    const found = findApplicationInList(html, { numberPattern: this.o.profile.confirmation.applicationNumberPattern, caseId: this.o.caseFile.caseId, caseValues: values });
    if (!found) throw new ReadEnd({ status: 'failed', reason: `No application of case ${this.o.caseFile.caseId} is on the applications list (no row shows the case's own values); nothing was touched` });
    this.note('applications_list', `The case's application on the list is ${found.applicationNumber} (${found.matchedBy})`);
    return found.applicationNumber;
  }

  private async status(task: ReadTask, observation: Observation, html: string): Promise<{ result: StatusResult; model: ModelCall | null; reasoning: string }> {
    const number = this.wantedNumber(task, html);
    const rows = applicationRows(html, this.o.profile.confirmation.applicationNumberPattern);
    const row = rows.find((r) => r.applicationNumber === number);
    const notListed = () => new ReadEnd({ status: 'failed', reason: `Application ${number} is not on the applications list (${rows.length} rows read); nothing was touched`, applicationNumber: number });
    if (this.o.extractor.kind === 'rules') {
      if (!row) throw notListed();
      if (!row.status) throw new ReadEnd({ status: 'failed', reason: `Application ${number} is on the list, but no column of it reads as its status; nothing was touched`, applicationNumber: number });
      return {
        result: { kind: 'status', applicationNumber: number, status: row.status, reference: row.reference, submittedOn: row.date, readBy: 'rules' },
        model: null,
        reasoning: `Read-only status task: code read the applications list (${rows.length} rows) and found ${number}.`,
      };
    }
    const question =
      task.question ?? `What is the status of application ${number} on this applications list? Give its application number, its status, the client reference and the date as the list shows them.`;
    const { data, call } = await extract(observation, question, StatusAnswer, this.o.extractor.options);
    // The model reads; code checks what it read is on the page (a status not shown is no answer).
    if (!data.status || data.applicationNumber !== number) throw notListedByModel(number, call);
    if (!onPage(observation, data.status)) throw new ReadEnd({ status: 'failed', reason: `The model read status "${data.status}" for ${number}, but the page does not show it; nothing was touched`, applicationNumber: number });
    return {
      result: { kind: 'status', applicationNumber: number, status: data.status, reference: data.reference, submittedOn: data.submittedOn, readBy: 'model' },
      model: call,
      reasoning: `Read-only status task: one extraction call read the applications list for ${number}.`,
    };
  }

  private async extractPage(task: ReadTask, read: PageRead, observation: Observation): Promise<{ result: ExtractResult; model: ModelCall | null; reasoning: string }> {
    const path = new URL(observation.url).pathname;
    let applicationNumber: string | null;
    let reference: string | null;
    let model: ModelCall | null = null;
    if (this.o.extractor.kind === 'rules') {
      applicationNumber = numberOn(observation, this.o.profile.confirmation.applicationNumberPattern);
      reference = /\breference:\s*(.+)$/im.exec(observation.text)?.[1]?.trim() ?? null;
    } else {
      const question = task.question ?? 'What application number and client reference does this acknowledgement page show?';
      const answer = await extract(observation, question, PageAnswer, this.o.extractor.options);
      model = answer.call;
      applicationNumber = answer.data.applicationNumber && onPage(observation, answer.data.applicationNumber) ? answer.data.applicationNumber : null;
      reference = answer.data.reference && onPage(observation, answer.data.reference) ? answer.data.reference : null;
    }
    if (task.applicationNumber && applicationNumber !== task.applicationNumber) {
      throw new ReadEnd({ status: 'failed', reason: `${path} does not show application ${task.applicationNumber}${applicationNumber ? ` (it shows ${applicationNumber})` : ''}; nothing was touched` });
    }
    const receiptSha256 = applicationNumber ? await this.keepReceipt(applicationNumber) : null;
    return {
      result: { kind: 'extract', page: path, applicationNumber, reference, title: observation.title, receiptSha256, readBy: model ? 'model' : 'rules' },
      model,
      reasoning: `Read-only extract task: ${model ? 'one extraction call' : 'code'} read ${path}.`,
    };
  }

  /** The acknowledgement kept as proof, as a form run keeps it: the page itself, nothing fetched. */
  private async keepReceipt(applicationNumber: string): Promise<string | null> {
    try {
      const { receipt, notes } = await keepConfirmationPage(this.o.page);
      for (const line of notes) this.note('receipt', line);
      if (!receipt) return null;
      const sha256 = sha256Hex(receipt.bytes);
      const where = this.o.receipts ? await this.o.receipts.keep({ ...receipt, sha256, runId: this.o.runId, applicationNumber }) : 'not kept (no receipt folder)';
      this.note('receipt', `Acknowledgement of ${applicationNumber}: ${receipt.url}, ${receipt.contentType.split(';')[0]}, sha256 ${sha256}, ${receipt.bytes.byteLength} bytes, kept at ${where}`);
      return sha256;
    } catch (err) {
      this.note('receipt', `The acknowledgement could not be kept: ${errorText(err)}`);
      return null;
    }
  }

  private async goto(url: string): Promise<void> {
    await this.o.gate.during({ step: this.step, description: `code: open ${url}`, approved: false }, async () => {
      try {
        await this.o.page.goto(url, { waitUntil: 'domcontentloaded', timeout: 30_000 });
      } catch (err) {
        this.note('navigation', `${url} did not load (${errorText(err)}); trying again`);
        await this.o.page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
      }
    });
  }

  private async signInByCode(read: PageRead): Promise<void> {
    this.signIns += 1;
    if (this.signIns > 2) throw new ReadEnd({ status: 'failed', reason: `The portal asked to sign in again after code signed in; check the stored login for client ${this.o.caseFile.clientId}` });
    const credentials = await this.o.credentials.get(this.o.caseFile.clientId, this.o.profile.id);
    if (!credentials) {
      throw new ReadEnd({ status: 'failed', reason: `No stored login for client ${this.o.caseFile.clientId} on portal ${this.o.profile.id}; add one with "portal-desk vault set"` });
    }
    this.addSecret(credentials.password);
    const result = await this.o.gate.during({ step: this.step, description: 'code: sign in from the vault', approved: false }, () => signIn(read, this.o.profile, credentials));
    this.note('sign_in', result.message);
    if (!result.ok && !result.retry) throw new ReadEnd({ status: 'failed', reason: result.message });
  }

  private async oneTimeCode(read: PageRead, field: NonNullable<ReturnType<typeof findOneTimeCodeField>>): Promise<void> {
    await this.setStatus('awaiting_input', 'Waiting for you: type the one-time code');
    const code = await this.o.inputs.ask({ runId: this.o.runId, step: this.step, kind: 'otp', question: 'The portal sent a one-time code to the client’s phone. Type the code.', field: null });
    await this.setStatus('running');
    if (code === null) throw new ReadEnd({ status: 'failed', reason: 'The clerk did not type the one-time code' });
    this.addSecret(code);
    const typed = await this.o.gate.during({ step: this.step, description: 'code: type the one-time code the clerk gave', approved: false }, () => enterOneTimeCode(read, field, code));
    this.note('otp', typed.ok ? `One-time code ${maskCode(code)} typed by code` : typed.message);
  }

  private async setStatus(status: RunStatus, reason?: string): Promise<void> {
    await this.o.recorder.updateRun(this.o.runId, { status, reason });
    this.o.listener?.status?.(status, reason);
  }

  private async saveLoginState(): Promise<void> {
    if (!this.o.loginStates || this.signIns === 0) return;
    try {
      await this.o.loginStates.save(this.o.caseFile.clientId, this.o.profile.id, JSON.stringify(await this.o.page.context().storageState()));
    } catch (err) {
      this.note('login_state_not_saved', errorText(err));
    }
  }

  private async screenshot(): Promise<Uint8Array | null> {
    try {
      return await maskedScreenshot(this.o.page, { timeout: 10_000 });
    } catch (err) {
      this.note('screenshot_failed', errorText(err));
      return null;
    }
  }

  private async record(parts: { startedAt: string; observation: Observation; screenshot: Uint8Array | null; reasoning: string; model: ModelCall | null }): Promise<void> {
    const observation = this.secrets.redact(parts.observation);
    const requests = egressLockOf(this.o.page.context())?.takeRequests() ?? [];
    const step: StepRecord = this.secrets.redact({
      runId: this.o.runId,
      index: this.step,
      startedAt: parts.startedAt,
      endedAt: this.now().toISOString(),
      observation,
      observationHash: digest(observation),
      screenshotHash: parts.screenshot ? sha256Hex(parts.screenshot) : null,
      reasoning: parts.reasoning,
      model: parts.model,
      // A read-only task proposes no action: nothing on the page is touched.
      actions: [],
      events: this.events.splice(0),
      ...(requests.length ? { requests } : {}),
    });
    if (step.requests) step.requestsSha256 = digest(step.requests);
    await this.o.recorder.recordStep(step, parts.screenshot);
    this.o.listener?.step?.(step);
    this.step += 1;
  }
}

function notListedByModel(number: string, call: ModelCall): PlannerError {
  return new PlannerError('invalid_output', `The model found no status for application ${number} on the applications list; nothing was touched`, call);
}

/** The same page, whatever the query or fragment. */
function samePage(current: string, target: string): boolean {
  try {
    const a = new URL(current);
    const b = new URL(target);
    return a.host === b.host && a.pathname.replace(/\/+$/, '') === b.pathname.replace(/\/+$/, '');
  } catch {
    return false;
  }
}

/** The text stands on the page as read (title, headings or text), whatever its case and spacing. */
function onPage(observation: Observation, text: string): boolean {
  const flat = (t: string) => t.replace(/\s+/g, ' ').trim().toLowerCase();
  const wanted = flat(text);
  return wanted !== '' && [observation.title, ...observation.headings, observation.text].some((t) => flat(t).includes(wanted));
}

function numberOn(observation: Observation, pattern: string): string | null {
  const re = linearPattern(pattern);
  for (const text of [observation.title, ...observation.headings, observation.text]) {
    const number = firstMatch(re, text);
    if (number !== undefined) return number;
  }
  return null;
}
