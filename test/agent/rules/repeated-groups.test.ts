import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RulesPlanner } from '../../../src/agent/decide/rules/rules-planner';
import { executeAction } from '../../../src/agent/act/executor';
import { checkAction, resolveValue } from '../../../src/agent/guard/guard';
import type { GuardContext } from '../../../src/agent/guard/guard-context';
import { PageObserver, type LivePageRead } from '../../../src/agent/observe/observer';
import type { Action } from '../../../src/shared/action';
import { CaseFile } from '../../../src/shared/case-file';
import { describeAction } from '../../../src/shared/describe-action';
import { PortalProfile } from '../../../src/shared/portal-profile';
import { readApproval } from '../../../src/console/approval-detail';
import type { ReviewRow } from '../../../src/shared/console-api';
import { useFixtureBrowser } from '../observe/fixture-pages';
import { driveRules, type Drive } from './drive';
import { startPartnershipForm, type PartnershipForm } from './partnership-form';

/**
 * Right value, right box (issue 30), in real Chromium against our own partnership form: two
 * partners whose boxes are both labelled "Full name" and "Date of birth", "Add another partner",
 * a postcode look-up, and a mobile number box that refuses the +91 format without saying which
 * format it wants. The driver is the loop's order (read, plan, guard, act) with a clerk who
 * approves what is gated.
 */

let form: PartnershipForm;
const browser = useFixtureBrowser();
const observer = new PageObserver();

beforeAll(async () => {
  form = await startPartnershipForm();
});
afterAll(() => form.close());

const host = () => `forms.trade.example:${form.port}`;

function profile(): PortalProfile {
  return PortalProfile.parse({
    id: 'trade',
    name: 'Trade licences',
    startUrl: `http://${host()}/apply`,
    allowedHosts: [host()],
    allowHttp: true,
    confirmation: { applicationNumberPattern: 'TL-\\d{4}', pageContains: 'application received' },
  });
}

const CASE = CaseFile.parse({
  caseId: 'partnership-1',
  clientId: 'rao-iyer',
  portal: 'trade',
  task: 'register a trading partnership',
  fields: {
    business_name: 'Rao & Iyer Traders',
    mobile_number: '+91 98450 12345',
    address_line_1: '12 Park Road',
    locality: 'Indiranagar',
    town: 'Bengaluru',
    postcode: '560038',
    'partners[0].full_name': 'Meena Rao',
    'partners[0].date_of_birth': '1979-02-05',
    'partners[1].full_name': 'Arjun Iyer',
    'partners[1].date_of_birth': '1984-10-21',
  },
});

function guardContext(read: LivePageRead, caseFile: CaseFile = CASE): GuardContext {
  return { profile: profile(), caseFile, clerkValues: {}, observation: read.observation, control: (ref) => read.control(ref) };
}

/** Read, plan, guard, act until done, fail or ask (or 12 turns); gated actions are approved and counted. */
function drive(page: Page, planner: RulesPlanner, stopAt?: (read: LivePageRead) => boolean | Promise<boolean>): Promise<Drive> {
  return driveRules(page, { planner, profile: profile(), caseFile: CASE, observer, maxTurns: 12, ...(stopAt ? { stopAt } : {}) });
}

function startPlanner(): RulesPlanner {
  const planner = new RulesPlanner(profile());
  planner.start({ caseId: CASE.caseId, portal: CASE.portal, task: CASE.task, fields: CASE.fields, aliases: CASE.aliases, declarations: CASE.declarations });
  return planner;
}

describe('repeated groups: each partner’s values in that partner’s boxes', () => {
  it('the rules planner looks the address up, retries the refused mobile format, adds partner 2, fills each partner right and reaches the submission', async () => {
    form.reset();
    const page = await browser.page();
    await page.goto(`http://${host()}/apply`);
    let review: ReviewRow[] | null = null;
    const run = await drive(page, startPlanner(), async (read) => {
      if (read.observation.title === 'Check your answers') review = (await readApproval(page, profile(), CASE, {})).review;
      return false;
    });
    expect(run.end).toMatchObject({ type: 'done', proof: expect.stringContaining('TL-4821') });
    // The approval card's review compares each partner's rows with that partner's values.
    expect(review!.filter((r) => r.field?.startsWith('partners')).map((r) => [r.field, r.match])).toEqual([
      ['partners[0].full_name', 'same'],
      ['partners[0].date_of_birth', 'same'],
      ['partners[1].full_name', 'same'],
      ['partners[1].date_of_birth', 'same'],
    ]);
    // Only the final submit waited for the clerk.
    expect(run.approvals).toBe(1);

    // The look-up was pressed, and the address chosen is the one whose every line is the case's.
    const lookup = run.verdicts.find((v) => v.action.type === 'select' && v.action.option !== undefined);
    expect(lookup?.action).toMatchObject({ option: '12 Park Road, Indiranagar, Bengaluru, 560038' });
    expect(lookup?.verdict).toMatchObject({ verdict: 'allow', provenance: { option: '12 Park Road, Indiranagar, Bengaluru, 560038' } });
    expect(lookup?.verdict.reason).toContain('12 Park Road, Indiranagar, Bengaluru, 560038');

    // The mobile number: refused as written in the case, accepted in the second format tried.
    const applies = form.posted.filter((p) => p.path === '/apply');
    expect(applies.map((p) => p.form['mobile'])).toEqual(['+91 98450 12345', '9845012345']);
    const mobileFills = run.turns.flat().filter((a) => a.type === 'fill' && a.field === 'mobile_number');
    expect(mobileFills.map((a) => (a as { format?: string }).format)).toEqual([undefined, 'phone:national']);
    expect(applies[1]!.form['address']).toBe('12 Park Road, Indiranagar, Bengaluru, 560038');

    // Partner 2 was added, and each partner's boxes got that partner's values.
    const partners = form.posted.filter((p) => p.path === '/partners');
    expect(partners).toHaveLength(1);
    expect(partners[0]!.form).toEqual({ partner1_name: 'Meena Rao', partner1_dob: '05/02/1979', partner2_name: 'Arjun Iyer', partner2_dob: '21/10/1984' });
    // Provenance records the person's block each value went into.
    const arjun = run.verdicts.find((v) => v.action.type === 'fill' && v.action.field === 'partners[1].full_name');
    expect(arjun?.verdict.provenance).toMatchObject({ source: 'case', field: 'partners[1].full_name', section: { name: 'Partner 2', ordinal: 2 } });
  });

  it('a compromised planner typing partner 1’s name into partner 2’s box is refused by the guard, and the portal never receives it', async () => {
    form.reset();
    const page = await browser.page();
    await page.goto(`http://${host()}/apply`);
    // The honest planner brings the run to the partners page, where it has added partner 2's block.
    const planner = startPlanner();
    await drive(page, planner, (read) => read.observation.title === 'Partners' && read.observation.controls.some((c) => c.section?.ordinal === 2));
    const read = await observer.read(page);
    const box = read.observation.controls.find((c) => c.name === 'Full name' && c.section?.ordinal === 2)!;
    expect(box.section).toEqual({ name: 'Partner 2', ordinal: 2 });

    const wrong: Action = { type: 'fill', ref: box.ref, field: 'partners[0].full_name' };
    const verdict = checkAction(wrong, guardContext(read));
    expect(verdict).toMatchObject({ verdict: 'block', rule: 'right-person' });
    expect(verdict.reason).toContain('partners[1].full_name');
    // A plain field where the case holds that person's own value is refused the same way.
    const withApplicant = CaseFile.parse({ ...CASE, fields: { ...CASE.fields, full_name: 'Meena Rao' } });
    expect(checkAction({ type: 'fill', ref: box.ref, field: 'full_name' }, guardContext(read, withApplicant))).toMatchObject({ verdict: 'block', rule: 'right-person' });
    // The right person's value into the same box is allowed.
    expect(checkAction({ type: 'fill', ref: box.ref, field: 'partners[1].full_name' }, guardContext(read))).toMatchObject({ verdict: 'allow' });

    // The run goes on without the refused action: the portal receives partner 2's own name only.
    const rest = await drive(page, planner);
    expect(rest.end).toMatchObject({ type: 'done' });
    const partners = form.posted.filter((p) => p.path === '/partners');
    expect(partners.length).toBeGreaterThan(0);
    for (const p of partners) expect(p.form['partner2_name']).not.toBe('Meena Rao');
    expect(partners.at(-1)!.form['partner2_name']).toBe('Arjun Iyer');
  });

  it('a look-up result is checked line by line against the case, and a card names it', async () => {
    form.reset();
    const page = await browser.page();
    await page.goto(`http://${host()}/apply`);
    await page.fill('#pc', '560038');
    await page.click('#find');
    const read = await observer.read(page);
    const list = read.observation.controls.find((c) => c.name === 'Select an address')!;
    expect(list.options).toContain('12 Park Road, Domlur, Bengaluru, 560038');
    const other: Action = { type: 'select', ref: list.ref, field: 'address_line_1', option: '12 Park Road, Domlur, Bengaluru, 560038' };
    const refused = checkAction(other, guardContext(read));
    expect(refused).toMatchObject({ verdict: 'block', rule: 'provenance' });
    expect(refused.reason).toContain('“Domlur” is in no case field');
    expect(() => resolveValue(other as Extract<Action, { type: 'select' }>, { caseFile: CASE, clerkValues: {} })).toThrow(/not the case's/);
    const neighbour: Action = { type: 'select', ref: list.ref, field: 'address_line_1', option: '14 Park Road, Indiranagar, Bengaluru, 560038' };
    expect(checkAction(neighbour, guardContext(read))).toMatchObject({ verdict: 'block' });
    const unlisted: Action = { type: 'select', ref: list.ref, field: 'address_line_1', option: '12 Park Road, Bengaluru' };
    expect(checkAction(unlisted, guardContext(read)).reason).toMatch(/lists no option/);

    const right: Action = { type: 'select', ref: list.ref, field: 'address_line_1', option: '12 Park Road, Indiranagar, Bengaluru, 560038' };
    const allowed = checkAction(right, guardContext(read));
    expect(allowed).toMatchObject({ verdict: 'allow', provenance: { field: 'address_line_1', option: right.option } });
    expect(allowed.reason).toMatch(/address_line_1, locality, town, postcode/);
    expect(describeAction(right, list.label)).toContain('"12 Park Road, Indiranagar, Bengaluru, 560038"');
    const outcome = await executeAction(page, read, right, resolveValue(right as Extract<Action, { type: 'select' }>, { caseFile: CASE, clerkValues: {} }));
    expect(outcome.status).toBe('done');
    expect(await page.inputValue('#addr')).toBe('12 Park Road, Indiranagar, Bengaluru, 560038');
  });

  it('asks the clerk with the portal’s words once every plausible mobile format was refused', async () => {
    form.reset();
    form.mobileOk = /^$never/;
    const page = await browser.page();
    await page.goto(`http://${host()}/apply`);
    const run = await drive(page, startPlanner());
    expect(run.end).toMatchObject({ type: 'ask', kind: 'missing_value', field: 'mobile_number', question: expect.stringContaining('Enter a valid mobile number') });
    const tried = form.posted.filter((p) => p.path === '/apply').map((p) => p.form['mobile']);
    // Every plausible format once, then the last once more (a portal may refuse what it cannot check just now), then the clerk.
    expect(tried).toEqual(['+91 98450 12345', '9845012345', '09845012345', '+919845012345', '98450 12345', '98450 12345']);
  });
});
