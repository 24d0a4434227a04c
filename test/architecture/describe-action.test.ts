import { describe, expect, it } from 'vitest';
import { describeAction as auditDescribe } from '../../src/audit';
import { formatStep } from '../../src/cli/step-log';
import type { Action } from '../../src/shared/action';
import { describeAction } from '../../src/shared/describe-action';
import type { StepRecord } from '../../src/shared/run';

describe('describeAction: one wording for the loop, the terminal, the audit and the console', () => {
  const cases: [Action, string | undefined, string][] = [
    [{ type: 'click', ref: 'e4' }, 'button "Submit application"', 'click button "Submit application"'],
    [{ type: 'click', ref: 'e4' }, undefined, 'click e4'],
    [{ type: 'fill', ref: 'e7', field: 'owner_name' }, 'textbox "Owner name"', 'fill textbox "Owner name" from case field owner_name'],
    [{ type: 'select', ref: 'e9', field: 'county' }, 'combobox "County"', 'select in combobox "County" from case field county'],
    [{ type: 'fill', ref: 'e8', field: 'date_of_birth', format: 'date:DD/MM/YYYY' }, 'textbox "Date of birth"', 'fill textbox "Date of birth" from case field date_of_birth (written DD/MM/YYYY)'],
    [{ type: 'fill', ref: 'e8', field: 'date_of_birth', format: 'date:day' }, 'textbox "Day"', 'fill textbox "Day" from case field date_of_birth (the day of the date)'],
    [{ type: 'upload', ref: 'e3', document: 'id_proof' }, 'button "Identity proof"', 'attach case document id_proof to button "Identity proof"'],
    [{ type: 'check', ref: 'e2', checked: false }, 'checkbox "Newsletter"', 'untick checkbox "Newsletter"'],
    [{ type: 'press', key: 'Enter' }, undefined, 'press Enter'],
    [{ type: 'goto', url: 'https://portal.example/apply' }, undefined, 'go to https://portal.example/apply'],
    [{ type: 'ask', kind: 'missing_value', question: 'What is the parcel number?', field: 'parcel' }, undefined, 'ask the clerk (missing value): What is the parcel number?'],
    [{ type: 'done', proof: 'Application number SHP-1' }, undefined, 'done: Application number SHP-1'],
    [{ type: 'fail', reason: 'The portal is closed for maintenance' }, undefined, 'give up: The portal is closed for maintenance'],
  ];

  it.each(cases)('%j on %s', (action, element, line) => {
    expect(describeAction(action, element)).toBe(line);
  });

  it('is the function the audit exports, and the words the terminal step log prints', () => {
    expect(auditDescribe).toBe(describeAction);
    const step = {
      index: 3,
      observation: { flowStep: 'Owner', headings: [], title: 'Apply', controls: [], errors: [] },
      events: [],
      actions: [
        {
          action: { type: 'fill', ref: 'e7', field: 'owner_name' },
          element: 'textbox "Owner name"',
          verdict: { verdict: 'allow', rule: 'provenance', reason: 'case value' },
          outcome: { status: 'done', ms: 12 },
        },
      ],
    } as unknown as StepRecord;
    expect(formatStep(step)[1]).toContain('fill textbox "Owner name" from case field owner_name → allow → done');
  });
});
