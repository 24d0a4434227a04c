import type { PortalId } from './hosts';

/**
 * Applications some lab clients filed before the lab started (the known answers of the status
 * checks in resources/cases/status/): they are on the client's applications list of that portal,
 * with a status other than "Submitted", and their acknowledgement page opens at
 * /confirmation/<number> like any other. Their numbers are from 2025, so they never collide with
 * the numbers the lab gives out, and no form case uses these clients.
 */
export interface EarlierApplication {
  portal: PortalId;
  clientId: string;
  applicationNumber: string;
  status: string;
  /** What the applications list shows to tell applications apart (registration number, consumer number…). */
  reference: string;
  submittedAt: string;
}

export const EARLIER_APPLICATIONS: readonly EarlierApplication[] = [
  { portal: 'shops', clientId: 'ravi-textiles', applicationNumber: 'SHP-2025-000123', status: 'Approved', reference: 'TN/SHP/2019/004512', submittedAt: '2025-02-11T10:20:00.000Z' },
  { portal: 'shops', clientId: 'ravi-textiles', applicationNumber: 'SHP-2025-000877', status: 'Returned for correction', reference: 'TN/SHP/2021/007730', submittedAt: '2025-09-03T08:05:00.000Z' },
  { portal: 'tax', clientId: 'godavari-exports', applicationNumber: 'PTX-2025-000456', status: 'Accepted', reference: 'PTRC/MH/2023/118204 / 2025-03', submittedAt: '2025-04-18T12:40:00.000Z' },
  { portal: 'tax', clientId: 'godavari-exports', applicationNumber: 'PTX-2025-000612', status: 'Under scrutiny', reference: 'PTRC/MH/2023/118204 / 2025-06', submittedAt: '2025-07-21T09:15:00.000Z' },
  { portal: 'power', clientId: 'nair-residence', applicationNumber: 'PWR-2025-000789', status: 'Pending site inspection', reference: '170044120093', submittedAt: '2025-11-02T14:30:00.000Z' },
  { portal: 'power', clientId: 'nair-residence', applicationNumber: 'PWR-2025-000344', status: 'Completed', reference: '170044120093', submittedAt: '2025-05-09T11:00:00.000Z' },
];

export function earlierApplications(clientId: string, portal?: PortalId): EarlierApplication[] {
  return EARLIER_APPLICATIONS.filter((a) => a.clientId === clientId && (portal === undefined || a.portal === portal)).sort((a, b) => (a.submittedAt < b.submittedAt ? -1 : 1));
}

export function earlierApplication(applicationNumber: string): EarlierApplication | undefined {
  return EARLIER_APPLICATIONS.find((a) => a.applicationNumber === applicationNumber);
}
