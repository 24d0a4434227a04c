import { PortalProfile } from '../../src/shared/portal-profile';
import { DS_HOSTS, DS_NUMBER_PATTERNS, type DsPortal } from './data';

/**
 * Each portal of the design-system family as the office lead would describe it: its host, its
 * review and confirmation words, its submit path, and its request map (default deny: what is not a
 * save or a look-up here waits for the clerk). Fields the page writes or picks for the case (a date
 * in the portal's format, a state's postal code, a looked-up address, a radio's value) are page fields.
 */
export function designSystemProfile(portal: DsPortal, port: number): PortalProfile {
  const host = `${DS_HOSTS[portal]}:${port}`;
  const common = { allowedHosts: [host], allowHttp: true, startUrl: `http://${host}/` };
  if (portal === 'uswds') {
    return PortalProfile.parse({
      ...common,
      id: 'ds-uswds',
      name: 'Benefits card (USWDS lab)',
      finalReviewPatterns: ['review your application'],
      confirmation: { applicationNumberPattern: DS_NUMBER_PATTERNS.uswds, pageContains: 'application received' },
      submitPaths: ['/submit'],
      requestMap: [
        { method: 'POST', path: '/apply', kind: 'save', pageFields: ['date_of_birth', 'state', 'phone', 'contact_method'] },
      ],
    });
  }
  if (portal === 'govuk') {
    return PortalProfile.parse({
      ...common,
      id: 'ds-govuk',
      name: 'Visitor permit (GOV.UK Frontend lab)',
      finalReviewPatterns: ['check your answers'],
      confirmation: { applicationNumberPattern: DS_NUMBER_PATTERNS.govuk, pageContains: 'application complete' },
      submitPaths: ['/send'],
      requestMap: [
        // "Find address" and "Continue" post the same form; the button's action says which.
        { method: 'POST', path: '/apply', kind: 'save', values: { action: ['find', 'continue'] }, pageFields: ['contact', 'address', 'phone'] },
      ],
    });
  }
  return PortalProfile.parse({
    ...common,
    id: 'ds-moj',
    name: 'Register a claim (MoJ Frontend lab)',
    finalReviewPatterns: ['check your answers'],
    confirmation: { applicationNumberPattern: DS_NUMBER_PATTERNS.moj, pageContains: 'application complete' },
    submitPaths: ['/send'],
    requestMap: [
      { method: 'POST', path: '/claim', kind: 'save', pageFields: ['claim_date'] },
    ],
  });
}
