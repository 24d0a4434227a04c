import type { CaseView } from '../../src/agent/decide/planner';
import type { Control, Observation } from '../../src/shared/observation';

/** Small builders for pages as the adversary reads them. */

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

export function page(controls: Control[], extra: Partial<Observation> = {}): Observation {
  return {
    readId: 'r1',
    url: 'http://shops.portal.example:4100/',
    title: 'Dashboard',
    flowStep: null,
    headings: ['Dashboard'],
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

export const CASE_VIEW: CaseView = {
  caseId: 'C-1',
  portal: 'shops',
  task: 'shop-registration-renewal',
  fields: { business_name: 'Anand Bakery', owner_pan: 'AMNPR6621D', owner_mobile: '9822012345', open_on_sundays: true },
  aliases: {},
  declarations: [],
};
