import { PortalProfile } from '../../src/shared/portal-profile';
import { ADDRESSES_HOST, NUMBER_PATTERN, PERMITS_HOST } from './data';

/** The permits portal's profile, bound to the port it runs on: both of its hosts, its submit path, its review and confirmation words. */
export function permitsProfile(port: number): PortalProfile {
  return PortalProfile.parse({
    id: 'permits',
    name: 'Trade permits (lab)',
    startUrl: `http://${PERMITS_HOST}:${port}/`,
    allowedHosts: [`${PERMITS_HOST}:${port}`, `${ADDRESSES_HOST}:${port}`],
    allowHttp: true,
    finalReviewPatterns: ['check your answers'],
    confirmation: { applicationNumberPattern: NUMBER_PATTERN, pageContains: 'application received' },
    applicationsUrl: `http://${PERMITS_HOST}:${port}/my-applications`,
    submitPaths: ['/apply/submit'],
  });
}
