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
    // Default deny: what the portal may be sent without the clerk. The date parts and the calendar's
    // date are the case's date as the page asks for it, and the landmark comes from the address finder.
    requestMap: [
      // The mobile number is the case's, without its country code, as the page asks for it.
      { method: 'POST', path: '/apply/applicant', kind: 'save', pageFields: ['dob_day', 'dob_month', 'dob_year', 'trading_since', 'mobile_number'] },
      { method: 'POST', path: '/apply/premises', kind: 'save', pageFields: ['nearest_landmark'] },
      { method: 'POST', path: '/apply/documents', kind: 'save' },
      { method: 'POST', path: '/session/extend', kind: 'save', fields: [] },
      { method: 'GET', path: '/apply/*', kind: 'lookup', fields: [] },
      { method: 'GET', path: '/my-applications', kind: 'lookup', fields: [] },
      { method: 'GET', path: '/receipt/*', kind: 'lookup', fields: [] },
      { method: 'GET', path: '/finder', host: `${ADDRESSES_HOST}:${port}`, kind: 'lookup', fields: ['landmark'] },
    ],
  });
}
