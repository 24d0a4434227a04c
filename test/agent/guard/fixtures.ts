import type { GuardContext } from '../../../src/agent/guard/guard-context';
import { CaseFile, type CaseFileInput } from '../../../src/shared/case-file';
import type { Control, Observation } from '../../../src/shared/observation';
import { PortalProfile, type PortalProfileInput } from '../../../src/shared/portal-profile';

/** Test data for the action guard: a shops portal, a case, and pages built from controls. */

export function makeProfile(extra: Partial<PortalProfileInput> = {}): PortalProfile {
  return PortalProfile.parse({
    id: 'shops',
    name: 'Shops portal',
    startUrl: 'https://shops.portal.example/',
    allowedHosts: ['shops.portal.example', 'static.portal.example', 'uploads.portal.example:8443'],
    confirmation: { applicationNumberPattern: 'SHP-\\d{4}-\\d{6}', pageContains: 'application submitted' },
    ...extra,
  });
}

export function makeCase(extra: Partial<CaseFileInput> = {}): CaseFile {
  return CaseFile.parse({
    caseId: 'C-1',
    clientId: 'lakshmi',
    portal: 'shops',
    task: 'shop-registration-renewal',
    fields: { business_name: 'Lakshmi Stores', district: 'Pune', same_as_business: true, has_branch: false, accept_terms: true },
    aliases: { business_name: ['Name of the establishment'] },
    declarations: ['I declare that the information given is true'],
    ...extra,
  });
}

let counter = 0;
export function control(partial: Partial<Control> & Pick<Control, 'role' | 'name'>): Control {
  counter += 1;
  return {
    ref: `r1c${counter}`,
    nameSource: 'accessible',
    disabled: false,
    required: false,
    invalid: false,
    gated: false,
    label: `${partial.role} "${partial.name}"`,
    ...partial,
  };
}

export function observation(controls: Control[], extra: Partial<Observation> = {}): Observation {
  return {
    readId: 'r1',
    url: 'https://shops.portal.example/renewal/step-1',
    title: 'Renew your shop registration',
    flowStep: 'Step 1 of 3',
    headings: ['Business details'],
    text: '',
    textTruncated: false,
    errors: [],
    controls,
    omittedControls: 0,
    unnamedControls: 0,
    frameHosts: [],
    hasPasswordField: false,
    readMs: 1,
    ...extra,
  };
}

export interface ContextParts {
  controls?: Control[];
  page?: Partial<Observation>;
  profile?: PortalProfile;
  caseFile?: CaseFile;
  clerkValues?: Record<string, string>;
}

export function context(parts: ContextParts = {}): GuardContext {
  const obs = observation(parts.controls ?? [], parts.page);
  const byRef = new Map(obs.controls.map((c) => [c.ref, c]));
  return {
    profile: parts.profile ?? makeProfile(),
    caseFile: parts.caseFile ?? makeCase(),
    clerkValues: parts.clerkValues ?? {},
    observation: obs,
    control: (ref) => byRef.get(ref),
  };
}

/**
 * The Water Board, the gate tests' https portal on one host, as a profile's common fields: each
 * test adds its submission paths, request map or forbidden paths and parses it with PortalProfile.
 */
export const WATER_BOARD = {
  id: 'water',
  name: 'Water Board',
  startUrl: 'https://connect.water.example/',
  allowedHosts: ['connect.water.example'],
  confirmation: { applicationNumberPattern: 'WB-\\d{8}', pageContains: 'Application received' },
} as const;
