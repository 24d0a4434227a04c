import type { Page } from 'playwright-core';
import type { CaseFile } from '../../shared/case-file';
import type { Control, Observation } from '../../shared/observation';
import type { PortalProfile } from '../../shared/portal-profile';
import type { RunRecorder } from '../../shared/recorder';
import type { ProgressRecord } from '../../shared/run';
import { findApplicationNumber } from '../portal/page-kind';

const DRAFT_ID = /\bdraft (?:id|reference|number)[:\s#]*([A-Z0-9][A-Z0-9-]{2,40})/i;
const MOVES_ON = /\b(continue|next|save and|proceed)\b/i;

/**
 * Keeps the form's progress record (sections done, draft id, application number) durable
 * as the run goes, and answers "did the first submission go through?" before any retry.
 */
export class ProgressTracker {
  private record: ProgressRecord | undefined;

  constructor(
    private readonly recorder: RunRecorder,
    private readonly caseFile: CaseFile,
    private readonly now: () => Date,
  ) {}

  async load(): Promise<ProgressRecord> {
    const c = this.caseFile;
    this.record = (await this.recorder.getProgress(c.clientId, c.portal, c.task)) ?? {
      clientId: c.clientId,
      portal: c.portal,
      task: c.task,
      caseId: c.caseId,
      sectionsDone: [],
      updatedAt: this.now().toISOString(),
    };
    return this.record;
  }

  get current(): ProgressRecord {
    if (!this.record) throw new Error('progress not loaded');
    return this.record;
  }

  private async save(patch: Partial<ProgressRecord>): Promise<void> {
    this.record = { ...this.current, ...patch, updatedAt: this.now().toISOString() };
    await this.recorder.saveProgress(this.record);
  }

  /** Notes a draft id or an application number the page shows. */
  async observe(observation: Observation, profile: PortalProfile): Promise<void> {
    const draft = DRAFT_ID.exec(observation.text)?.[1];
    if (draft && draft !== this.current.draftId) await this.save({ draftId: draft });
    const number = findApplicationNumber(observation, profile);
    if (number && number !== this.current.applicationNumber) await this.save({ applicationNumber: number });
  }

  async clicked(control: Control | undefined, observation: Observation): Promise<void> {
    if (!control || !observation.flowStep || !MOVES_ON.test(control.name)) return;
    if (this.current.sectionsDone.includes(observation.flowStep)) return;
    await this.save({ sectionsDone: [...this.current.sectionsDone, observation.flowStep] });
  }

  async applicationNumber(number: string): Promise<void> {
    if (number !== this.current.applicationNumber) await this.save({ applicationNumber: number });
  }

  /**
   * Called right before the final submit is clicked. When an earlier attempt may have gone
   * through, the portal's applications list is checked first: an application found there is
   * returned and the form is not submitted again. Otherwise the attempt is recorded durably.
   */
  async beforeSubmit(page: Page, profile: PortalProfile): Promise<string | undefined> {
    if (this.current.applicationNumber) return this.current.applicationNumber;
    if (this.current.submitAttemptedAt && profile.applicationsUrl) {
      const found = await this.findOnApplicationsList(page, profile);
      if (found) {
        await this.save({ applicationNumber: found });
        return found;
      }
    }
    await this.save({ submitAttemptedAt: this.now().toISOString() });
    return undefined;
  }

  private async findOnApplicationsList(page: Page, profile: PortalProfile): Promise<string | undefined> {
    const response = await page.request.get(profile.applicationsUrl!, { timeout: 15_000, maxRedirects: 0 });
    if (!response.ok()) throw new Error(`could not read the applications list to check an earlier submission (HTTP ${response.status()})`);
    const html = await response.text();
    const pattern = new RegExp(profile.confirmation.applicationNumberPattern, 'g');
    const rows = html.split(/<tr|<li|<article/i);
    for (const row of rows) {
      const mentionsCase = row.includes(this.caseFile.caseId) || (this.current.draftId !== undefined && row.includes(this.current.draftId));
      if (!mentionsCase) continue;
      const match = pattern.exec(row);
      pattern.lastIndex = 0;
      if (match) return match[1] ?? match[0];
    }
    return undefined;
  }

  /** A line for the planner after a fresh sign-in: where the form stood. */
  resumeNote(): string | undefined {
    const p = this.current;
    if (!p.draftId && p.sectionsDone.length === 0) return undefined;
    const parts = [p.draftId ? `draft ${p.draftId}` : undefined, p.sectionsDone.length ? `sections done: ${p.sectionsDone.join('; ')}` : undefined];
    return `Progress record: ${parts.filter(Boolean).join(', ')}. Continue the saved draft; do not start a new application.`;
  }
}
