import type { Observation } from '../../shared/observation';
import type { PortalProfile } from '../../shared/portal-profile';
import { firstMatch, linearPattern } from '../../shared/linear-pattern';

/** What kind of page a read shows, judged from the portal profile (never from page instructions). */

function pageLines(observation: Observation): string[] {
  return [observation.title, ...observation.headings].map((line) => line.toLowerCase());
}

export function isFinalReviewPage(observation: Observation, profile: PortalProfile): boolean {
  const lines = pageLines(observation);
  return profile.finalReviewPatterns.some((pattern) => lines.some((line) => line.includes(pattern.toLowerCase())));
}

export function isConfirmationPage(observation: Observation, profile: PortalProfile): boolean {
  const wanted = profile.confirmation.pageContains.toLowerCase();
  return pageLines(observation).some((line) => line.includes(wanted));
}

/** The application number shown on a confirmation page, or undefined. */
export function findApplicationNumber(observation: Observation, profile: PortalProfile): string | undefined {
  if (!isConfirmationPage(observation, profile)) return undefined;
  const pattern = linearPattern(profile.confirmation.applicationNumberPattern);
  for (const text of [...observation.headings, observation.text]) {
    const number = firstMatch(pattern, text);
    if (number !== undefined) return number;
  }
  return undefined;
}
