import type { CaseView } from '../../src/agent/decide/planner';
import type { Control, Observation } from '../../src/shared/observation';
import { control, observation } from '../agent/guard/fixtures';

/** Small builders for pages as the adversary reads them: the guard's test controls on a lab dashboard. */
export { control };

export function page(controls: Control[], extra: Partial<Observation> = {}): Observation {
  return observation(controls, { url: 'http://shops.portal.example:4100/', title: 'Dashboard', flowStep: null, headings: ['Dashboard'], ...extra });
}

export const CASE_VIEW: CaseView = {
  caseId: 'C-1',
  portal: 'shops',
  task: 'shop-registration-renewal',
  fields: { business_name: 'Anand Bakery', owner_pan: 'AMNPR6621D', owner_mobile: '9822012345', open_on_sundays: true },
  aliases: {},
  declarations: [],
};
