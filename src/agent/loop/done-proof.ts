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
    return { ok: false, end: true, reason: `the portal answered more than one submission in this run: ${more.map((a) => `${a.line} (${a.numbers.join(', ') || 'no number'})`).join(' and ')}; the run is not done with two applications, check the portal's applications list` };
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
