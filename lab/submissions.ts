import type { FieldValues } from './forms/spec';
import { earlierApplications } from './history';
import type { PortalId } from './hosts';

/** Every submission the portals accepted (duplicates included), and the numbers they were given. */

export interface Submission {
  portal: PortalId;
  clientId: string;
  task: string;
  applicationNumber: string;
  /** The draft the application was saved as, or null when it was never saved. */
  draftId: string | null;
  /** Every form field except declarations: text as typed (trimmed), checkboxes as booleans. */
  fields: FieldValues;
  submittedAt: string;
}

export interface SubmissionFilter {
  portal?: PortalId;
  clientId?: string;
  task?: string;
}

export interface ApplicationSummary {
  portal: PortalId;
  applicationNumber: string;
  /** "Submitted" for what the lab accepted; an earlier application's own status (see history.ts). */
  status: string;
  /** What the applications list shows to tell applications apart (registration number, consumer number…). */
  reference: string;
  submittedAt: string;
}

export class SubmissionBook {
  private readonly records: Array<Submission & { reference: string }> = [];
  /** Numbers are never reused, not even after `lab.reset()`. */
  private readonly sequence = new Map<string, number>();

  record(entry: Omit<Submission, 'applicationNumber'> & { prefix: string; reference: string; year: number }): Submission {
    const next = (this.sequence.get(entry.prefix) ?? 0) + 1;
    this.sequence.set(entry.prefix, next);
    const record = {
      portal: entry.portal,
      clientId: entry.clientId,
      task: entry.task,
      applicationNumber: `${entry.prefix}-${entry.year}-${String(next).padStart(6, '0')}`,
      draftId: entry.draftId,
      fields: { ...entry.fields },
      submittedAt: entry.submittedAt,
      reference: entry.reference,
    };
    this.records.push(record);
    return strip(record);
  }

  list(filter: SubmissionFilter = {}): Submission[] {
    return this.records
      .filter((r) => (filter.portal === undefined || r.portal === filter.portal) && (filter.clientId === undefined || r.clientId === filter.clientId) && (filter.task === undefined || r.task === filter.task))
      .map(strip);
  }

  find(applicationNumber: string): Submission | undefined {
    const r = this.records.find((s) => s.applicationNumber === applicationNumber);
    return r ? strip(r) : undefined;
  }

  /** The client's applications list: earlier applications (history.ts) first, then what the lab accepted, oldest first. */
  applications(clientId: string, portal?: PortalId): ApplicationSummary[] {
    const earlier = earlierApplications(clientId, portal).map((a) => ({ portal: a.portal, applicationNumber: a.applicationNumber, status: a.status, reference: a.reference, submittedAt: a.submittedAt }));
    const accepted = this.records
      .filter((r) => r.clientId === clientId && (portal === undefined || r.portal === portal))
      .map((r) => ({ portal: r.portal, applicationNumber: r.applicationNumber, status: 'Submitted', reference: r.reference, submittedAt: r.submittedAt }));
    return [...earlier, ...accepted];
  }

  clear(): void {
    this.records.length = 0;
  }
}

function strip(r: Submission & { reference: string }): Submission {
  return { portal: r.portal, clientId: r.clientId, task: r.task, applicationNumber: r.applicationNumber, draftId: r.draftId, fields: { ...r.fields }, submittedAt: r.submittedAt };
}
