import { describe, expect, it } from 'vitest';
import { renderControl, SYSTEM_PROMPT } from '../../../src/agent/decide/anthropic';
import { renderPrevious } from '../../../src/agent/decide/anthropic/report';
import { TOOL_DESCRIPTION } from '../../../src/agent/decide/anthropic/prompt';
import { screenshotReason } from '../../../src/agent/decide/anthropic/screenshot-policy';
import { withGatedControls } from '../../../src/agent/decide/gated-controls';
import { checkAction } from '../../../src/agent/guard/guard';
import type { GuardContext } from '../../../src/agent/guard/guard-context';
import { loadPortalProfile } from '../../../src/agent/case/portal-profiles';
import type { Action } from '../../../src/shared/action';
import type { CaseFile } from '../../../src/shared/case-file';
import { control, observation, stepAction } from './fixtures';

/** What the model is told: the action cap, gated controls, radios and yes/no, the clerk's decisions. */
describe('what the model is told', () => {
  it('the system prompt states the action cap and how radios and yes/no fields are answered', () => {
    expect(SYSTEM_PROMPT).toContain('1 to 12 actions');
    expect(SYSTEM_PROMPT).toMatch(/more than 12 actions is refused as a whole/);
    expect(SYSTEM_PROMPT).toMatch(/Radio buttons and checkboxes are never filled or selected: use check/);
    expect(SYSTEM_PROMPT).toMatch(/yes\/no field .* with field set/);
    expect(SYSTEM_PROMPT).toMatch(/Controls marked gated in the read/);
    expect(TOOL_DESCRIPTION).toContain('field names the case field it answers');
  });

  it('marks a Submit button gated in the read (the guard will hold it), not a Continue button, and the screenshot comes with that read', () => {
    const profile = loadPortalProfile('shops');
    const page = observation({
      controls: [
        control({ ref: 'r1c1', role: 'button', name: 'Submit application' }),
        control({ ref: 'r1c2', role: 'button', name: 'Continue' }),
        control({ ref: 'r1c3', role: 'textbox', name: 'Payment reference' }),
      ],
    });
    const shown = withGatedControls(page, profile.riskyWords);
    expect(shown.controls.map((c) => c.gated)).toEqual([true, false, false]);
    expect(renderControl(shown.controls[0]!)).toBe('r1c1 button "Submit application" gated');
    expect(page.controls[0]!.gated).toBe(false);
    expect(screenshotReason({ observation: shown, previous: [], modelAsked: false })).toBe('gated_action');
    expect(screenshotReason({ observation: page, previous: [], modelAsked: false })).toBeNull();
  });

  it('reports the clerk’s decision on a gated action back to the model', () => {
    const denied = { ...stepAction({ type: 'click', ref: 'r1c1' }, 'denied', 'needs_approval'), element: 'button "Submit application"', approval: { decision: 'deny' as const, by: 'clerk-ana', at: '2026-12-01T10:00:00Z', note: 'wrong district' } };
    expect(renderPrevious([denied])).toContain('1. click r1c1 on button "Submit application" → needs approval (risky-control: submits the application); clerk denied (wrong district) → denied');
  });
});

describe('a check that names its case field', () => {
  const profile = loadPortalProfile('shops');
  const caseFile = { caseId: 'c1', clientId: 'k1', portal: 'shops', task: 't', fields: { has_employees: true, ownership: 'Partnership' }, aliases: {}, declarations: [] } as unknown as CaseFile;
  const page = observation({
    controls: [
      control({ ref: 'r2c1', role: 'radio', name: 'Proprietorship', group: 'Type of ownership', inputType: 'radio' }),
      control({ ref: 'r2c2', role: 'radio', name: 'Partnership', group: 'Type of ownership', inputType: 'radio' }),
      control({ ref: 'r2c3', role: 'radio', name: 'Yes', group: 'Do you employ staff?', inputType: 'radio' }),
      control({ ref: 'r2c4', role: 'radio', name: 'No', group: 'Do you employ staff?', inputType: 'radio' }),
      control({ ref: 'r2c5', role: 'checkbox', name: 'The shop has employees', inputType: 'checkbox' }),
    ],
  });
  const ctx: GuardContext = { profile, caseFile, clerkValues: {}, observation: page, control: (ref) => page.controls.find((c) => c.ref === ref) };
  const verdict = (action: Action) => checkAction(action, ctx);

  it('a radio whose label is the case value is allowed, with the field as provenance', () => {
    expect(verdict({ type: 'check', ref: 'r2c2', checked: true, field: 'ownership' })).toMatchObject({ verdict: 'allow', rule: 'provenance', provenance: { source: 'case', field: 'ownership' } });
    expect(verdict({ type: 'check', ref: 'r2c1', checked: true, field: 'ownership' })).toMatchObject({ verdict: 'block', rule: 'provenance', reason: expect.stringContaining('does not say what case field "ownership" says') });
  });

  it('yes/no: the matching Yes radio, a box ticked for yes; the No radio or an unticked box is refused', () => {
    expect(verdict({ type: 'check', ref: 'r2c3', checked: true, field: 'has_employees' })).toMatchObject({ verdict: 'allow', provenance: { field: 'has_employees' } });
    expect(verdict({ type: 'check', ref: 'r2c4', checked: true, field: 'has_employees' }).verdict).toBe('block');
    expect(verdict({ type: 'check', ref: 'r2c5', checked: true, field: 'has_employees' })).toMatchObject({ verdict: 'allow', provenance: { field: 'has_employees' } });
    expect(verdict({ type: 'check', ref: 'r2c5', checked: false, field: 'has_employees' }).verdict).toBe('block');
  });

  it('an unknown field is refused; a check without field is judged as before', () => {
    expect(verdict({ type: 'check', ref: 'r2c2', checked: true, field: 'nope' })).toMatchObject({ verdict: 'block', reason: expect.stringContaining('no case field named "nope"') });
    expect(verdict({ type: 'check', ref: 'r2c2', checked: true }).verdict).toBe('allow');
    expect(verdict({ type: 'fill', ref: 'r2c2', field: 'ownership' })).toMatchObject({ verdict: 'block', reason: expect.stringContaining('choose the option whose label is the case value with check') });
  });
});
