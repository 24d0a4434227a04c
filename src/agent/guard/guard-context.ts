import type { CaseFile } from '../../shared/case-file';
import type { Control, Observation } from '../../shared/observation';
import type { PortalProfile } from '../../shared/portal-profile';

/** Everything a guard rule may look at. None of it comes from the model. */
export interface GuardContext {
  profile: PortalProfile;
  caseFile: CaseFile;
  /** Values the clerk typed during this run (answers to `ask`), by field name. */
  clerkValues: Record<string, string>;
  observation: Observation;
  /** The control a ref names in the current read (undefined for unknown refs). */
  control(ref: string): Control | undefined;
}
