import type { Page } from 'playwright-core';
import type { CaseFile } from '../../shared/case-file';
import type { Control, Observation } from '../../shared/observation';
import type { PortalProfile } from '../../shared/portal-profile';
import type { RunRecorder } from '../../shared/recorder';
import type { ProgressRecord } from '../../shared/run';
import { listedApplications, newestOfThisCase, type ListedRow } from '../portal/applications-list';
import { fetchFromPortal } from '../portal/portal-fetch';

const DRAFT_ID = /\bdraft (?:id|reference|number)[:\s#]*([A-Z0-9][A-Z0-9-]{2,40})/i;
const MOVES_ON = /\b(continue|next|save and|proceed)\b/i;

/** What the portal's applications list says about this case. */
type ListCheck =
  | { kind: 'found'; applicationNumber: string; matchedBy: string }
  | { kind: 'absent' }
  /** The list cannot tell: it could not be read (signed out, an error page, no list in the profile), or it shows a number nothing ties to a case. */
  | { kind: 'unreadable'; reason: string };

/** Whether the final submit may be clicked now. */
type SubmitDecision =
  | { kind: 'submit' }
  /** Already submitted: end `done` with this proof, never submit again. */
  | { kind: 'found'; applicationNumber: string; proof: string }
  /** An earlier attempt may have gone through and the list cannot tell whether it did: do not click. */
  | { kind: 'unsure'; reason: string };

/**
 * Keeps the form's progress record (sections done, draft id, application number) durable
 * as the run goes, and answers "did the first submission go through?" before any retry.
 * The record is per client, portal and task; a record left by another case of the same task
 * (last month's return) is replaced, never reused.
 */
export class ProgressTracker {
  private record: ProgressRecord | undefined;

  constructor(
    private readonly recorder: RunRecorder,
    private readonly caseFile: CaseFile,
    /** The run that writes the record: its writes are fenced by that run's hold. */
    private readonly runId: string,
    private readonly now: () => Date,
    private readonly clerkValues: () => Record<string, string> = () => ({}),
  ) {}

  async load(): Promise<ProgressRecord> {
    const c = this.caseFile;
    const stored = await this.recorder.getProgress(c.clientId, c.portal, c.task);
    this.record =
      stored && stored.caseId === c.caseId
        ? stored
        : { clientId: c.clientId, portal: c.portal, task: c.task, caseId: c.caseId, sectionsDone: [], updatedAt: this.now().toISOString() };
    return this.record;
  }

  get current(): ProgressRecord {
    if (!this.record) throw new Error('progress not loaded');
    return this.record;
  }

  private async save(patch: Partial<ProgressRecord>): Promise<void> {
    this.record = { ...this.current, ...patch, updatedAt: this.now().toISOString() };
    await this.recorder.saveProgress(this.record, this.runId);
  }

  /**
   * Notes a draft id the page shows. An application number is never taken from a page here: the
   * loop saves one only with proof (`applicationNumber`), since any page can print one.
   */
  async observe(observation: Observation): Promise<void> {
    const draft = DRAFT_ID.exec(observation.text)?.[1];
    if (draft && draft !== this.current.draftId && !this.current.applicationNumber) await this.save({ draftId: draft });
  }

  /** A submission is about to leave (whatever sent it): written before it goes. */
  async submitAttempted(): Promise<void> {
    await this.save({ submitAttemptedAt: this.now().toISOString() });
  }

  async clicked(control: Control | undefined, observation: Observation): Promise<void> {
    if (!control || !observation.flowStep || !MOVES_ON.test(control.name)) return;
    if (this.current.sectionsDone.includes(observation.flowStep)) return;
    await this.save({ sectionsDone: [...this.current.sectionsDone, observation.flowStep] });
  }

  async applicationNumber(number: string): Promise<void> {
    if (number !== this.current.applicationNumber) await this.save({ applicationNumber: number });
  }

  /** A submit may have gone through in an earlier attempt (or life) of this case. */
  get mayHaveSubmitted(): boolean {
    return this.current.submitAttemptedAt !== undefined || this.current.applicationNumber !== undefined;
  }

  /** A saved draft or finished sections to go back to after a fresh sign-in. */
  get hasWorkInProgress(): boolean {
    return !this.current.applicationNumber && (this.current.draftId !== undefined || this.current.sectionsDone.length > 0);
  }

  /**
   * Called right before the final submit is clicked. When an earlier attempt may have gone
   * through, the portal's applications list is checked first: an application found there is
   * returned and the form is not submitted again; a list that cannot be read means no click.
   * Otherwise the attempt is recorded durably, then the click may happen.
   */
  async beforeSubmit(page: Page, profile: PortalProfile): Promise<SubmitDecision> {
    const known = this.current.applicationNumber;
    if (known) return { kind: 'found', applicationNumber: known, proof: `application number ${known} in the progress record` };
    if (this.current.submitAttemptedAt) {
      const check = await this.checkApplicationsList(page, profile);
      if (check.kind === 'found') return { kind: 'found', applicationNumber: check.applicationNumber, proof: `application ${check.applicationNumber} on the applications list (${check.matchedBy})` };
      if (check.kind === 'unreadable') return { kind: 'unsure', reason: check.reason };
    }
    await this.save({ submitAttemptedAt: this.now().toISOString() });
    return { kind: 'submit' };
  }

  /**
   * Reads the portal's applications list (profile.applicationsUrl, on an allowed host, with the
   * client's cookies; see `fetchFromPortal`) for this case's application. A found number is
   * saved in the record.
   */
  async checkApplicationsList(page: Page, profile: PortalProfile): Promise<ListCheck> {
    const listed = await this.listedApplications(page, profile);
    if (listed.kind === 'unreadable') return listed;
    const found = newestOfThisCase(listed.applications);
    if (!found) {
      // A list of numbers only cannot say the earlier submit did not go through: a number there may be this case's.
      const untied = listed.applications.filter((a) => a.untied).map((a) => a.applicationNumber);
      if (untied.length > 0) return { kind: 'unreadable', reason: `the applications list shows ${untied.join(', ')} with nothing that ties ${untied.length === 1 ? 'it' : 'them'} to a case, so ${untied.length === 1 ? 'it' : 'one'} may be this case's` };
      return { kind: 'absent' };
    }
    await this.applicationNumber(found.applicationNumber);
    return { kind: 'found', ...found };
  }

  /** The applications on the portal's applications list not dated before the first submit attempt, newest first (`matchedBy`: why a row is this case's; `untied`: it may be any case's). */
  async listedApplications(page: Page, profile: PortalProfile): Promise<{ kind: 'read'; applications: ListedRow[] } | { kind: 'unreadable'; reason: string }> {
    if (!profile.applicationsUrl) return { kind: 'unreadable', reason: `the portal profile "${profile.id}" names no applications list (applicationsUrl)` };
    const fetched = await fetchFromPortal(page, profile.applicationsUrl, profile);
    if (!fetched.ok) return { kind: 'unreadable', reason: `the applications list could not be read: ${fetched.reason}` };
    const html = Buffer.from(fetched.bytes).toString('utf8');
    const attempted = this.current.submitAttemptedAt;
    const applications = listedApplications(html, {
      numberPattern: profile.confirmation.applicationNumberPattern,
      caseId: this.caseFile.caseId,
      caseValues: [...Object.values(this.caseFile.fields), ...Object.values(this.clerkValues())].filter((v): v is string => typeof v === 'string'),
      draftId: this.current.draftId,
      // A day's slack: portals print local dates, the record keeps UTC.
      notBefore: attempted ? new Date(Date.parse(attempted) - 86_400_000).toISOString().slice(0, 10) : undefined,
    });
    return { kind: 'read', applications };
  }

  /** A line for the planner after a fresh sign-in: where the form stood. */
  resumeNote(): string | undefined {
    const p = this.current;
    if (!p.draftId && p.sectionsDone.length === 0) return undefined;
    const parts = [p.draftId ? `draft ${p.draftId}` : undefined, p.sectionsDone.length ? `sections done: ${p.sectionsDone.join('; ')}` : undefined];
    return `Progress record: ${parts.filter(Boolean).join(', ')}. Continue the saved draft; do not start a new application.`;
  }
}
