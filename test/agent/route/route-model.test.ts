import { describe, expect, it } from 'vitest';
import { FieldNames } from '../../../src/agent/decide/rules/field-names';
import { compareSignature, pageSignature, Scrubber } from '../../../src/agent/route/page-signature';
import { learnStep, resolveStep } from '../../../src/agent/route/route-steps';
import { nextRoute, type RunEnding } from '../../../src/agent/route/route-update';
import type { Control, Observation } from '../../../src/shared/observation';
import type { PortalProfile } from '../../../src/shared/portal-profile';
import type { Route } from '../../../src/shared/route';
import type { StepRecord } from '../../../src/shared/run';

/** The route model without a browser: signatures across clients, identities, learning in field terms, resolving, retiring. */

let refs = 0;
function control(role: string, name: string, extra: Partial<Control> = {}): Control {
  refs += 1;
  return { ref: `r1c${refs}`, role, name, nameSource: 'accessible', disabled: false, required: false, invalid: false, gated: false, label: `${role} "${name}"`, ...extra };
}

function page(controls: Control[], headings = ['Owner details'], flowStep: string | null = 'Step 2 of 4: Owner details'): Observation {
  return { readId: 'r1', url: 'http://shops.portal.example/apply/owner', title: 'Owner', flowStep, headings, text: '', textTruncated: false, errors: [], controls, omittedControls: 0, unnamedControls: 0, frameHosts: [], hasPasswordField: false, readMs: 1 };
}

const profile = { confirmation: { pageContains: 'Application submitted', applicationNumberPattern: '(SHP-\\d{4}-\\d{6})' } } as unknown as PortalProfile;

function ownerPage(name: string) {
  const controls = [
    control('textbox', 'Owner name'),
    control('textbox', 'Address line 1'),
    control('textbox', 'Address line 2'),
    control('checkbox', 'Open on Sundays'),
    control('radio', 'Shop', { group: 'Establishment category' }),
    control('radio', 'Hotel or restaurant', { group: 'Establishment category' }),
    control('button', 'Save and continue'),
  ];
  return page(controls, [`Owner details for ${name}`]);
}

const A = { owner_name: 'Anand Raghavan', address_line_1: '27 Radhakrishnan Salai', address_line_2: 'Mylapore', open_on_sundays: false, establishment_category: 'Hotel or restaurant' };
const B = { owner_name: 'Meera Kulkarni', address_line_1: '14 Karve Road', address_line_2: 'Kothrud', open_on_sundays: true, establishment_category: 'Shop' };
const aliases = { open_on_sundays: ['Open on Sundays'], establishment_category: ['Establishment category'] };
const names = new FieldNames(Object.keys(A), aliases);
const coverA = { fields: A, aliases, declarations: [] };
const coverB = { fields: B, aliases, declarations: ['I declare that the particulars given are true'] };

describe('page signatures and control identities', () => {
  it('the same page for two clients has the same signature, and the route text holds neither client’s values', () => {
    const a = ownerPage('Anand Raghavan');
    const sigA = pageSignature(a, new Scrubber(Object.values(A)));
    expect(JSON.stringify(sigA)).not.toMatch(/anand|raghavan/i);
    expect(sigA.headings).toEqual(['owner details for {value}']);
    expect(compareSignature(sigA, ownerPage('Meera Kulkarni'), new Scrubber(Object.values(B)))).toEqual({ same: true });
  });

  it('a page with a new control, another heading or another flow step is not the same page, and says what differs', () => {
    const scrub = new Scrubber(Object.values(A));
    const sig = pageSignature(ownerPage('Anand Raghavan'), scrub);
    const more = ownerPage('Anand Raghavan');
    more.controls.push(control('textbox', 'GST number'));
    expect(compareSignature(sig, more, scrub)).toEqual({ same: false, difference: expect.stringContaining('new textbox "GST number"') });
    expect(compareSignature(sig, { ...ownerPage('Anand Raghavan'), flowStep: 'Step 3 of 4: Owner details' }, scrub)).toMatchObject({ same: true });
    expect(compareSignature(sig, { ...ownerPage('Anand Raghavan'), flowStep: 'Step 2 of 4: Addresses' }, scrub)).toMatchObject({ same: false, difference: expect.stringContaining('flow step') });
    expect(compareSignature(sig, { ...ownerPage('Anand Raghavan'), errors: [] , headings: ['Proprietor details'] }, scrub)).toMatchObject({ same: false, difference: expect.stringContaining('headings') });
  });

  it('route text of many value marks (a route edited in its store) is matched in linear time: a text it cannot match answers false at once', () => {
    // On a backtracking engine this is 40 lazy wildcards against 299 letters: its time grows as 299 to the 40th.
    const scrub = new Scrubber(Object.values(A));
    const edited = `${'{value} '.repeat(40)}zz`;
    const text = 'a '.repeat(149) + 'b';
    const started = performance.now();
    expect(scrub.matches(edited, text)).toBe(false);
    expect(scrub.matches('owner {value} details', 'Owner Anand Raghavan details')).toBe(true);
    expect(scrub.matches('owner {value} details', 'Owner details')).toBe(false);
    // Linear: milliseconds; the bound only separates it from a hang (backtracking never ends here).
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe('learning a turn in field terms, and following it for another client', () => {
  it('keeps fields and identities, adds the box this client left unticked, and resolves them to the next client’s refs and values', () => {
    const a = ownerPage('Anand Raghavan');
    const [owner, line1, line2, , , hotel, next] = a.controls;
    const learned = learnStep({
      observation: a,
      // The planner ticked nothing: Anand's "Open on Sundays" is false and already unticked.
      actions: [
        { type: 'fill', ref: owner!.ref, field: 'owner_name' },
        { type: 'fill', ref: line1!.ref, field: 'address_line_1' },
        { type: 'fill', ref: line2!.ref, field: 'address_line_2' },
        { type: 'check', ref: hotel!.ref, checked: true },
        { type: 'click', ref: next!.ref },
      ],
      values: A,
      names,
      scrub: new Scrubber(Object.values(A)),
      cover: coverA,
    });
    if (!('step' in learned)) throw new Error(learned.unlearnable);
    const json = JSON.stringify(learned.step);
    for (const v of ['anand', 'raghavan', 'radhakrishnan', 'mylapore']) expect(json.toLowerCase()).not.toContain(v);
    expect(learned.step.actions.map((x) => x.type)).toEqual(['fill', 'fill', 'fill', 'choose', 'check', 'click']);
    expect(learned.step.actions[1]).toMatchObject({ control: { name: 'address line #', nth: 0, of: 2 } });
    expect(learned.step.actions[2]).toMatchObject({ control: { name: 'address line #', nth: 1, of: 2 } });

    const b = ownerPage('Meera Kulkarni');
    const resolved = resolveStep({ step: learned.step, observation: b, values: B, names, cover: coverB, scrub: new Scrubber(Object.values(B)), profile });
    if (!('actions' in resolved)) throw new Error(resolved.mismatch);
    const [bOwner, bLine1, bLine2, bSundays, bShop, , bNext] = b.controls;
    expect(resolved.actions).toEqual([
      { type: 'fill', ref: bOwner!.ref, field: 'owner_name' },
      { type: 'fill', ref: bLine1!.ref, field: 'address_line_1' },
      { type: 'fill', ref: bLine2!.ref, field: 'address_line_2' },
      { type: 'check', ref: bShop!.ref, checked: true, field: 'establishment_category' },
      { type: 'check', ref: bSundays!.ref, checked: true, field: 'open_on_sundays' },
      { type: 'click', ref: bNext!.ref },
    ]);
  });

  it('leaves out what is already so, and a control the read lacks is a mismatch for the planner', () => {
    const a = ownerPage('Anand Raghavan');
    const learned = learnStep({ observation: a, actions: [{ type: 'fill', ref: a.controls[0]!.ref, field: 'owner_name' }, { type: 'click', ref: a.controls[6]!.ref }], values: A, names, scrub: new Scrubber(Object.values(A)), cover: coverA });
    if (!('step' in learned)) throw new Error(learned.unlearnable);
    const b = ownerPage('Meera Kulkarni');
    b.controls[0] = { ...b.controls[0]!, value: 'Meera Kulkarni' };
    const resolved = resolveStep({ step: learned.step, observation: b, values: B, names, cover: coverB, scrub: new Scrubber(Object.values(B)), profile });
    expect('actions' in resolved && resolved.actions.some((x) => x.type === 'fill' && x.field === 'owner_name')).toBe(false);
    const without = ownerPage('Meera Kulkarni');
    without.controls = without.controls.filter((c) => c.name !== 'Save and continue');
    expect(resolveStep({ step: learned.step, observation: without, values: B, names, cover: coverB, scrub: new Scrubber(Object.values(B)), profile })).toEqual({ mismatch: 'no button "save and continue" on the page' });
  });

  it('never learns a page with errors, a goto, an ask or an action carrying more than a route keeps', () => {
    const a = ownerPage('Anand Raghavan');
    const base = { values: A, names, scrub: new Scrubber(Object.values(A)), cover: coverA };
    expect(learnStep({ ...base, observation: { ...a, errors: [{ message: 'Enter a name' }] }, actions: [{ type: 'click', ref: a.controls[6]!.ref }] })).toEqual({ unlearnable: 'the page shows errors' });
    expect(learnStep({ ...base, observation: a, actions: [{ type: 'goto', url: 'http://shops.portal.example/x' }] })).toMatchObject({ unlearnable: expect.stringContaining('goto') });
    expect(learnStep({ ...base, observation: a, actions: [{ type: 'ask', kind: 'missing_value', question: 'PAN?', field: 'pan' }] })).toMatchObject({ unlearnable: expect.stringContaining('ask') });
    expect(learnStep({ ...base, observation: a, actions: [{ type: 'fill', ref: a.controls[0]!.ref, field: 'owner_name', format: 'digits' } as never] })).toMatchObject({ unlearnable: expect.stringContaining('format') });
  });
});

describe('route data that would answer the case for the client', () => {
  const learnedOn = (observation: Observation, actions: Parameters<typeof learnStep>[0]['actions']) => {
    const learned = learnStep({ observation, actions, values: A, names, scrub: new Scrubber(Object.values(A)), cover: coverA });
    if (!('step' in learned)) throw new Error(learned.unlearnable);
    return learned.step;
  };
  const follow = (step: ReturnType<typeof learnedOn>, observation: Observation) => resolveStep({ step, observation, values: B, names, cover: coverB, scrub: new Scrubber(Object.values(B)), profile });

  it('a box a case field answers, set by the route itself (its field dropped), is a mismatch: the planner decides the page', () => {
    // Anand's Sundays box is learned bound to its field (he answers no; Meera answers yes).
    const step = learnedOn(ownerPage('Anand Raghavan'), []);
    const sundays = step.actions.find((x) => x.type === 'check' && x.field === 'open_on_sundays') as Extract<typeof step.actions[number], { type: 'check' }>;
    const tampered = { ...step, actions: step.actions.map((x) => (x === sundays ? { type: 'check' as const, control: sundays.control, checked: false } : x)) };
    expect(follow(tampered, ownerPage('Meera Kulkarni'))).toEqual({ mismatch: 'the route sets checkbox "Open on Sundays" by itself, and case field "open_on_sundays" answers it' });
  });

  it('a click on a box (which sets it like a tick, with no field) is neither followed nor learned', () => {
    const step = learnedOn(ownerPage('Anand Raghavan'), []);
    const sundays = step.actions.find((x) => x.type === 'check' && x.field === 'open_on_sundays') as Extract<typeof step.actions[number], { type: 'check' }>;
    const clicked = { ...step, actions: step.actions.map((x) => (x === sundays ? { type: 'click' as const, control: sundays.control } : x)) };
    const refusal = 'the route clicks checkbox "Open on Sundays", a box: a route sets a box only by ticking it for this case';
    expect(follow(clicked, ownerPage('Meera Kulkarni'))).toEqual({ mismatch: refusal });
    const a = ownerPage('Anand Raghavan');
    expect(learnStep({ observation: a, actions: [{ type: 'click', ref: a.controls[4]!.ref }], values: A, names, scrub: new Scrubber(Object.values(A)), cover: coverA })).toEqual({
      unlearnable: 'the route clicks radio "Shop", a box: a route sets a box only by ticking it for this case',
    });
  });

  it('a route edited so that every text is a value mark (it names nothing) is not followed: not on its own page, not on another, not crafted for another', () => {
    // Every text of the step (flow step, headings, control names and groups) replaced by `{value}`, which stands for
    // any text: the signature and the identities then name nothing, and only the fields and the boxes' own labels hold.
    const step = learnedOn(ownerPage('Anand Raghavan'), []);
    const marks = <T,>(value: T): T => JSON.parse(JSON.stringify(value), (key, v: unknown) => (typeof v === 'string' && ['flowStep', 'name', 'group'].includes(key) ? '{value}' : v)) as T;
    const edited = { ...marks(step), signature: { ...marks(step.signature), headings: step.signature.headings.map(() => '{value}') } };
    // Nothing but marks is left to name a page or a control (the fields are the route's own terms).
    expect(JSON.stringify(edited.signature)).not.toMatch(/owner|address|sundays|establishment|save/i);
    expect(edited.actions.map((x) => ('control' in x ? x.control.name : 'group' in x ? x.group : '{value}'))).toEqual(edited.actions.map(() => '{value}'));
    // On the page it was learned on: marks alone name no box (they would name every box of the role), so not followed.
    expect(follow(edited, ownerPage('Meera Kulkarni'))).toEqual({ mismatch: 'no textbox "{value}" on the page' });
    // With its fields swapped as well: still not followed, and never one field typed in another's box.
    const swapped = { ...edited, actions: edited.actions.map((x) => ('field' in x && x.field === 'owner_name' ? { ...x, field: 'address_line_1' } : 'field' in x && x.field === 'address_line_1' ? { ...x, field: 'owner_name' } : x)) };
    expect(follow(swapped, ownerPage('Meera Kulkarni'))).toMatchObject({ mismatch: expect.any(String) });
    // Another page (a tax page's boxes): not followed.
    const other = page([control('textbox', 'GST number'), control('textbox', 'PAN of the firm'), control('textbox', 'Trade licence'), control('checkbox', 'Registered for GST'), control('button', 'Continue')], ['Tax registration'], 'Step 3 of 4: Tax');
    expect(follow(edited, other)).toMatchObject({ mismatch: expect.any(String) });
    // Crafted for that page: its signature in marks, identities counting its boxes. Marks alone stand for nothing, so no
    // box of it is named (before, this put the owner's name in "GST number" and an address line in "PAN of the firm").
    const crafted = {
      signature: { ...marks(pageSignature(other, new Scrubber([]))), headings: other.headings.map(() => '{value}') },
      actions: [
        { type: 'fill' as const, control: { role: 'textbox', name: '{value}', nth: 0, of: 3 }, field: 'owner_name' },
        { type: 'fill' as const, control: { role: 'textbox', name: '{value}', nth: 1, of: 3 }, field: 'address_line_1' },
      ],
    };
    expect(follow(crafted, other)).toEqual({ mismatch: 'no textbox "{value}" on the page' });
    // A mark beside words still stands for a value: "owner {value} details" names the owner's heading, as before.
    expect(new Scrubber(Object.values(B)).matches('owner details for {value}', 'Owner details for Somebody Else')).toBe(true);
  });

  it('one field’s value in another field’s box is a mismatch, for a box, a radio group and a text box', () => {
    const step = learnedOn(ownerPage('Anand Raghavan'), []);
    const swap = (from: string, to: string) => ({ ...step, actions: step.actions.map((x) => ('field' in x && x.field === from ? { ...x, field: to } : x)) });
    expect(follow(swap('owner_name', 'address_line_1'), ownerPage('Meera Kulkarni'))).toEqual({ mismatch: 'the route puts case field "address_line_1" in textbox "Owner name", which case field "owner_name" answers' });
    expect(follow(swap('open_on_sundays', 'owner_name'), ownerPage('Meera Kulkarni'))).toMatchObject({ mismatch: expect.stringContaining('which case field "open_on_sundays" answers') });
  });

  it('a tick no field names is followed only for a declaration this case lists; an untick never', () => {
    const withBox = (name: string) => {
      const p = ownerPage('Meera Kulkarni');
      p.controls.splice(6, 0, control('checkbox', name));
      return p;
    };
    const declaration = 'I declare that the particulars given are true';
    const learnPage = withBox(declaration);
    // Learned from a case that lists the declaration; followed for B, which lists it too.
    const learned = learnStep({ observation: learnPage, actions: [{ type: 'check', ref: learnPage.controls[6]!.ref, checked: true }], values: A, names, scrub: new Scrubber(Object.values(A)), cover: { ...coverA, declarations: [declaration] } });
    if (!('step' in learned)) throw new Error(learned.unlearnable);
    expect(follow(learned.step, withBox(declaration))).toMatchObject({ actions: expect.arrayContaining([expect.objectContaining({ type: 'check', checked: true })]) });
    // The same route data on a box no declaration covers, and unticking one, go to the planner.
    const other = { ...learned.step, actions: learned.step.actions.map((x) => (x.type === 'check' && x.field === undefined ? { ...x, control: { ...x.control, name: 'show my shop in the public directory' } } : x)) };
    const directory = withBox('Show my shop in the public directory');
    other.signature = pageSignature(directory, new Scrubber(Object.values(B)));
    expect(follow(other, directory)).toEqual({ mismatch: 'the route ticks checkbox "Show my shop in the public directory", which no declaration or field of this case covers' });
    // Learning refuses the same: a tick the case does not cover is never kept.
    expect(learnStep({ observation: directory, actions: [{ type: 'check', ref: directory.controls[6]!.ref, checked: true }], values: A, names, scrub: new Scrubber(Object.values(A)), cover: coverA })).toEqual({
      unlearnable: 'the route ticks checkbox "Show my shop in the public directory", which no declaration or field of this case covers',
    });
    // A planner's tick against the case field is not learned either.
    const a = ownerPage('Anand Raghavan');
    expect(learnStep({ observation: a, actions: [{ type: 'check', ref: a.controls[3]!.ref, checked: true }], values: A, names, scrub: new Scrubber(Object.values(A)), cover: coverA })).toEqual({
      unlearnable: 'the route sets checkbox "Open on Sundays" by itself, and case field "open_on_sundays" answers it',
    });
  });

  it('a declaration the read shows ticked (an earlier turn the route could not learn ticked it) is kept only where the case lists it, and followed only for a client whose case lists it', () => {
    const declaration = 'I declare that the particulars given are true';
    const ticked = (name: string) => {
      const p = ownerPage('Anand Raghavan');
      p.controls.splice(6, 0, control('checkbox', name, { checked: true }));
      return p;
    };
    const unticked = (name: string) => {
      const p = ownerPage('Meera Kulkarni');
      p.controls.splice(6, 0, control('checkbox', name));
      return p;
    };
    const learnPage = ticked(declaration);
    const next = learnPage.controls.find((c) => c.role === 'button')!;
    // The turn only presses the page's button; the tick was already there.
    const learned = learnStep({ observation: learnPage, actions: [{ type: 'click', ref: next.ref }], values: A, names, scrub: new Scrubber(Object.values(A)), cover: { ...coverA, declarations: [declaration] } });
    if (!('step' in learned)) throw new Error(learned.unlearnable);
    const tick = learned.step.actions.find((x) => x.type === 'check' && x.field === undefined);
    expect(tick).toMatchObject({ type: 'check', checked: true, control: { role: 'checkbox', name: declaration.toLowerCase() } });
    expect(learned.step.actions.indexOf(tick!)).toBeLessThan(learned.step.actions.findIndex((x) => x.type === 'click'));
    expect(follow(learned.step, unticked(declaration))).toMatchObject({ actions: expect.arrayContaining([expect.objectContaining({ type: 'check', checked: true })]) });
    // A client whose case does not list the declaration: the planner decides the page.
    const unlisted = resolveStep({ step: learned.step, observation: unticked(declaration), values: B, names, cover: { ...coverB, declarations: [] }, scrub: new Scrubber(Object.values(B)), profile });
    expect(unlisted).toEqual({ mismatch: `the route ticks checkbox "${declaration}", which no declaration or field of this case covers` });
    // A ticked box no declaration of the case covers is not kept in the route.
    const directory = ticked('Show my shop in the public directory');
    const plain = learnStep({ observation: directory, actions: [{ type: 'click', ref: directory.controls.find((c) => c.role === 'button')!.ref }], values: A, names, scrub: new Scrubber(Object.values(A)), cover: coverA });
    if (!('step' in plain)) throw new Error(plain.unlearnable);
    expect(plain.step.actions.some((x) => x.type === 'check' && x.field === undefined)).toBe(false);
  });
});

describe('what a finished run does to its route', () => {
  const route: Route = {
    portal: 'shops', task: 'renewal', version: 3, status: 'active', failures: 0, learnedFrom: 'run-0', healedSteps: 0, createdAt: 't0', updatedAt: 't0',
    steps: [{ signature: { flowStep: null, headings: ['x'], controls: [] }, actions: [{ type: 'done' }] }],
  };
  const ending = (previous: Route, status: RunEnding['status'], reason: string): RunEnding => ({
    runId: 'run-9', portal: 'shops', task: 'renewal', status, reason, previous, now: 't1', steps: [] as StepRecord[],
    trace: [{ index: 2, source: 'route', routeStep: 0, step: previous.steps[0] }],
  });

  it('two failed runs in a row that followed it retire it; a denial or a bot check is not the route’s failure', () => {
    const once = nextRoute(ending(route, 'failed', 'Step cap reached'));
    expect(once).toMatchObject({ kind: 'save', what: 'failed', route: { failures: 1, status: 'active' } });
    const twice = nextRoute(ending((once as { route: Route }).route, 'failed', 'Step cap reached'));
    expect(twice).toMatchObject({ kind: 'save', what: 'retired', route: { failures: 2, status: 'retired', retiredReason: expect.stringContaining('Step cap') } });
    expect(nextRoute(ending(route, 'failed', 'Denied by clerk: click Submit'))).toMatchObject({ kind: 'none' });
    expect(nextRoute(ending(route, 'blocked', 'bot_challenge: a CAPTCHA'))).toMatchObject({ kind: 'none' });
  });

  it('a done run without a verified done of its own (an earlier submission found) leaves the route as it was', () => {
    expect(nextRoute({ ...ending(route, 'done', 'Already submitted earlier'), trace: [] })).toMatchObject({ kind: 'none' });
  });
});
