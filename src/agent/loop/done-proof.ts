import type { Observation } from '../../shared/observation';
import type { PortalProfile } from '../../shared/portal-profile';
import type { PageRead } from '../observe/page-read';
import { findApplicationNumber } from '../portal/page-kind';
import { firstUnseen } from '../portal/proof';
import type { RunContext } from './run-context';
import { allMatches, linearPattern } from '../../shared/linear-pattern';

/** `end`: the run cannot be `done` at all (the portal filed more than one application): it ends failed with the reason. */
export type DoneProof = { ok: true; applicationNumber: string } | { ok: false; reason: string; end?: true };

/**
 * Proof of `done` on this page: a confirmation page (the profile's words) with an application
 * number, both visibly on the page, reached after an approved submission of this run that the
 * portal answered (sent and not aborted: a response came back), and a
 * number the portal had not shown before that submission and that its answer to the submission
 * carries (a redirect's address or the body it ended on: a number the page writes is no proof). Found, it goes in the progress record.
 * `page` is the page `read` was read from: the run's own, or a new tab the portal opened.
 */
export async function proofOnPage(read: PageRead, run: RunContext, page = run.o.page): Promise<DoneProof> {
  const { profile, gate } = run.o;
  const number = findApplicationNumber(read.observation, profile);
  if (!number) return { ok: false, reason: 'this page is not a confirmation page with an application number' };
  if (gate.submissionsSent === 0) {
    return { ok: false, reason: `the page shows ${number}, but this run has sent no approved submission, so it proves nothing` };
  }
  if (gate.submissionsAnswered === 0) {
    return { ok: false, reason: `the page shows ${number}, but the portal never answered this run's approved submission (it did not leave, or was cut off), so it proves nothing` };
  }
  const more = await applicationsFiled(run, profile);
  if (more.length > 1) {
    const answered = `the portal answered more than one submission in this run: ${more.map((a) => `${a.line} (${a.numbers.join(', ') || 'no number'})`).join(' and ')}`;
    const listed = await oneApplicationListed(run, number, more);
    if (!listed.ok) return { ok: false, end: true, reason: `${answered}; the run is not done with two applications, check the portal's applications list (${listed.why})` };
    if (!run.state.answersExplained) {
      run.state.answersExplained = true;
      run.note('applications_list', `${answered[0]!.toUpperCase()}${answered.slice(1)}; the portal's applications list holds one application of this case, ${number} (${listed.matchedBy}): the answers without a number filed nothing`);
    }
  }
  if (!(await gate.answerCarries(number))) {
    return { ok: false, reason: `the page shows ${number}, but the portal did not answer this run's submission with it (the page wrote it, or it came from elsewhere), so it proves nothing` };
  }
  if (run.state.numbersBeforeSubmission.has(number)) {
    return { ok: false, reason: `${number} was on the portal's pages before this run's submission, so it is not this submission's number` };
  }
  const unseen = await firstUnseen(page, [number, profile.confirmation.pageContains]);
  if (unseen !== null) return { ok: false, reason: `“${unseen}” is not visibly on the page (hidden text is no proof)` };
  await run.progress.applicationNumber(number);
  return { ok: true, applicationNumber: number };
}

/**
 * More than one submission of this run was answered: the run may still be `done` when the evidence
 * says only one application exists. Only the answers carrying `number` carry a number (the others
 * filed nothing they told of: an outage's 503, an error page), and the portal's applications list,
 * read now, holds exactly one application it had not shown before this run's submission, `number`
 * (rows dated before the first submit attempt are older; a row of this case or one the list does
 * not tie to any case counts, one naming another reference does not). A second number anywhere, a second new application on the list, or
 * a list that cannot be read leaves the run failed.
 */
async function oneApplicationListed(run: RunContext, number: string, filed: readonly { numbers: string[] }[]): Promise<{ ok: true; matchedBy: string } | { ok: false; why: string }> {
  const numbers = new Set(filed.flatMap((f) => f.numbers));
  if (numbers.size !== 1 || !numbers.has(number)) return { ok: false, why: `the answers carry ${numbers.size === 0 ? 'no number' : [...numbers].join(', ')}` };
  const listed = await run.progress.listedApplications(run.o.page, run.o.profile);
  if (listed.kind === 'unreadable') return { ok: false, why: listed.reason };
  // Rows of this case, and rows the list ties to no case; a row naming another case's reference is that case's.
  const fresh = listed.applications.filter((a) => (a.matchedBy !== undefined || a.untied) && !run.state.numbersBeforeSubmission.has(a.applicationNumber));
  const [only, ...others] = fresh;
  if (!only || others.length > 0 || only.applicationNumber !== number) {
    return { ok: false, why: `its applications list shows ${fresh.length === 0 ? 'no new application' : `${fresh.map((a) => a.applicationNumber).join(', ')} as new`}` };
  }
  return { ok: true, matchedBy: only.matchedBy ?? 'the only new application there' };
}

/** Every match of the profile's application-number pattern on the page (its text and headings). */
export function applicationNumbersIn(observation: Observation, profile: PortalProfile): string[] {
  const pattern = linearPattern(profile.confirmation.applicationNumberPattern);
  const found: string[] = [];
  for (const text of [observation.title, ...observation.headings, observation.text]) {
    found.push(...allMatches(pattern, text, 50 - found.length));
    if (found.length >= 50) return found;
  }
  return found;
}

/**
 * The requests this run sent that the portal answered as filing an application: every approved
 * submission it answered, and any other request whose answer carries an application number the
 * portal had not shown before this run's submission (a second lodging through another address, a
 * script, a form no card named). One request, one entry; its new numbers beside it.
 */
async function applicationsFiled(run: RunContext, profile: PortalProfile): Promise<{ line: string; numbers: string[] }[]> {
  // RE2 (linear time), like every other match of the profile's pattern: these answers are whole
  // response bodies, and a pattern such as `(.+){15}Z` backtracks on them without end in RegExp.
  const pattern = linearPattern(profile.confirmation.applicationNumberPattern);
  const before = run.state.numbersBeforeSubmission;
  const filed: { line: string; numbers: string[] }[] = [];
  const known = (n: string) => filed.some((f) => f.numbers.includes(n));
  for (const answer of await run.o.gate.portalAnswers()) {
    const numbers = [...new Set(allMatches(pattern, answer.text, 50).filter((n) => !before.has(n)))];
    const fresh = numbers.filter((n) => !known(n));
    if (answer.kind === 'submission') filed.push({ line: answer.line, numbers });
    else if (fresh.length === 0) continue;
    // A one-time code confirming the one submission, which the portal answered without a number: its answer issues it.
    else if (answer.kind === 'after_submission' && filed.length === 1 && filed[0]!.numbers.length === 0) filed[0]!.numbers.push(...fresh);
    else filed.push({ line: answer.line, numbers: fresh });
  }
  return filed;
}
