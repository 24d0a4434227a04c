import { describe, expect, it } from 'vitest';
import { draftProfile, heldAnswerOf, learningProfile, numberPattern, type HeldAnswer } from '../../../src/agent/portal/profile-draft';
import type { ApprovalRequest } from '../../../src/shared/clerk';
import type { Observation } from '../../../src/shared/observation';
import { PortalProfile } from '../../../src/shared/portal-profile';
import type { RequestEntry } from '../../../src/shared/request-log';
import type { StepRecord } from '../../../src/shared/run';
import { observation as pageObservation } from '../guard/fixtures';

/**
 * The drafting of a portal profile from one learning run's records, on records written here the
 * way the store keeps them (a run on a lab-like portal bound to port 4100): what enters the
 * draft, where each entry came from, and what stays out (other hosts, what the page sent on its
 * own, anything of the case or the login).
 */

const BOUND = 'http://forms.gov.example:4100';
const given = learningProfile('forms', 'http://forms.gov.example/');
const CASE = ['Lakshmi Stores', 'ABCPL1234K', '14, Temple Road'];
const LOGIN = ['lakshmi.stores', 'hunter2-secret'];

type Control = Observation['controls'][number];
function control(role: string, name: string, inputType?: string): Control {
  return { ref: `e${name.length}`, role, name, nameSource: 'accessible', ...(inputType ? { inputType } : {}), disabled: false, required: false, invalid: false, gated: false } as Control;
}

function step(index: number, path: string, heading: string, extra: Partial<Observation> = {}, requests: Partial<RequestEntry>[] = []): StepRecord {
  const observation = pageObservation([], { readId: `r${index}`, url: `${BOUND}${path}`, title: heading, flowStep: null, headings: [heading], ...extra });
  return {
    runId: 'run-1',
    index,
    startedAt: '2026-12-06T10:00:00.000Z',
    endedAt: '2026-12-06T10:00:01.000Z',
    observation,
    observationHash: 'x',
    screenshotHash: null,
    reasoning: '',
    model: null,
    actions: [],
    events: [],
    requests: requests.map((r) => ({ kind: 'http', method: 'GET', host: 'forms.gov.example', port: 4100, path: path, outcome: 'sent', rule: 'egress-lock:portal-hosts', count: 1, firstAt: 'a', lastAt: 'b', ...r }) as RequestEntry),
  };
}

function held(stepIndex: number, method: string, path: string, fields: HeldAnswer['fields'], extra: Partial<HeldAnswer> = {}): HeldAnswer {
  return { step: stepIndex, method, url: `${BOUND}${path}`, rule: 'unmapped-request', cause: `click button "Next" (step ${stepIndex}, allowed without approval)`, byPage: false, fields, decision: 'approve', ...extra };
}

const signIn = step(0, '/login', 'Sign in to Forms', {
  hasPasswordField: true,
  controls: [control('textbox', 'User ID'), control('textbox', 'Secret word', 'password'), control('button', 'Log in')],
});
const section = step(1, '/apply/8812/business', 'Business details', {
  text: 'Your draft D-88120001',
  controls: [{ ...control('link', 'Your applications'), href: `${BOUND}/applications` }],
});
const review = step(2, '/apply/8812/review', 'Review and send', {}, [{ method: 'POST', path: '/apply/8812/send' }]);
const confirmation = step(3, '/done/FRM-26-004711', 'Application received', { text: 'Your reference is FRM-26-004711. Keep it.' });
const steps = [signIn, section, review, confirmation];
const heldRequests: HeldAnswer[] = [
  held(0, 'POST', '/login', [{ name: 'userid', fromCase: false }, { name: 'secret', fromCase: false }], { cause: 'code: sign in from the vault (step 0, allowed without approval)' }),
  held(1, 'POST', '/apply/8812/business', [{ name: 'trade_name', fromCase: true }, { name: 'pan', fromCase: true }, { name: 'step', fromCase: false, value: 'next' }, { name: 'csrf', fromCase: false }]),
  held(2, 'POST', '/apply/8812/send', [{ name: 'confirm', fromCase: false, value: 'yes' }], { rule: 'final-review-post', cause: 'click button "Send application" (step 2): the action you are asked about' }),
];

describe('draftProfile', () => {
  it('drafts host, sign-in, final review, confirmation, number pattern, submission and saves, each with where it came from', () => {
    const draft = draftProfile({ given, boundStartUrl: `${BOUND}/`, steps, held: heldRequests, secrets: [...CASE, ...LOGIN] });
    expect(draft.problems).toEqual([]);
    const profile = PortalProfile.parse(draft.profile);
    expect(profile.allowedHosts).toEqual(['forms.gov.example']);
    expect(profile.startUrl).toBe('http://forms.gov.example/');
    expect(profile.applicationsUrl).toBe('http://forms.gov.example/applications');
    expect(profile.signIn).toEqual({ urlContains: '/login', usernameLabel: 'User ID', passwordLabel: 'Secret word', submitLabel: 'Log in' });
    expect(profile.finalReviewPatterns).toEqual(['review and send']);
    expect(profile.confirmation).toEqual({ pageContains: 'Application received', applicationNumberPattern: 'FRM-\\d{2}-\\d{6}' });
    // The draft's id segment (8812) reads as an id: the next run's draft has another.
    expect(profile.submitPaths).toEqual(['/apply/*/send']);
    expect(profile.requestMap).toEqual([
      { method: 'POST', path: '/apply/*/send', kind: 'submit' },
      { method: 'POST', path: '/login', kind: 'save', fields: ['userid', 'secret'], pageFields: ['userid', 'secret'] },
      { method: 'POST', path: '/apply/*/business', kind: 'save', fields: ['trade_name', 'pan', 'step', 'csrf'], values: { step: ['next'] }, pageFields: ['csrf'] },
    ]);
    const from = Object.fromEntries(draft.notes.map((n) => [n.entry.split(':')[0], n.from]));
    expect(from.signIn).toContain('step 0, page “Sign in to Forms” (/login)');
    expect(from.submitPaths).toContain('the filing at step 2 (click button "Send application"');
    expect(from.confirmation).toContain('step 3');
    // The number is the client's: the summary shows its shape only.
    expect(JSON.stringify(draft.notes)).not.toContain('FRM-26-004711');
    expect(from.confirmation).toContain('FRM-99-999999');
  });

  it('keeps other hosts, what the page sent on its own and denied requests out of the draft, and says so', () => {
    const attacked = [
      signIn,
      step(1, '/apply/8812/business', 'Business details', {}, [
        { method: 'POST', host: 'exfil.attacker.example', port: 4100, path: '/collect?x=…', outcome: 'refused', rule: 'egress-lock:portal-hosts' },
        { method: 'GET', path: '/lab-attack/armed?x=…' },
      ]),
      // The navigation lock names the host in its words only.
      { ...step(2, '/apply/8812/owner', 'Owner'), events: [{ type: 'navigation_blocked', at: 'c', message: 'Stopped the page going to mail.attacker.example:4100: mail.attacker.example is not one of forms’s addresses' }] },
      review,
      confirmation,
    ];
    const draft = draftProfile({
      given,
      boundStartUrl: `${BOUND}/`,
      steps: attacked,
      held: [
        ...heldRequests,
        held(1, 'POST', '/lab-attack/sink', [{ name: 'data', fromCase: false }], { byPage: true, cause: 'the page itself (a script, a form, a timer or a redirect), not an action of the agent' }),
        held(1, 'POST', '/apply/8812/notes', [{ name: 'note', fromCase: true }], { decision: 'deny' }),
        { ...held(1, 'POST', '/save', [{ name: 'business_name', fromCase: true }]), url: 'http://drafts.attacker.example:4100/save' },
      ],
      secrets: CASE,
    });
    expect(draft.problems).toEqual([]);
    const text = JSON.stringify(draft.profile);
    expect(text).not.toContain('attacker');
    expect(text).not.toContain('lab-attack');
    expect(text).not.toContain('/notes');
    expect(draft.left.join('\n')).toMatch(/exfil\.attacker\.example:4100: POST \/collect stopped at step 1/);
    expect(draft.left.join('\n')).toMatch(/host mail\.attacker\.example:4100: a request \(a page\) stopped at step 2/);
    expect(draft.left.join('\n')).toMatch(/\/lab-attack\/sink on forms\.gov\.example: sent by the page itself/);
    expect(draft.left.join('\n')).toMatch(/\/apply\/8812\/notes: denied by the clerk/);
    expect(draft.left.join('\n')).toMatch(/drafts\.attacker\.example:4100\/save: not on the portal's host/);
  });

  it('leaves out what holds a value of the case or the login, and never offers a draft that holds one', () => {
    const personal = [signIn, section, step(2, '/apply/8812/review', 'Check the answers of Lakshmi Stores'), confirmation];
    const withCaseChoice = [...heldRequests.slice(0, 2), held(1, 'POST', '/apply/8812/extra', [{ name: 'type', fromCase: false, value: 'ABCPL1234K' }]), heldRequests[2]!];
    const draft = draftProfile({ given, boundStartUrl: `${BOUND}/`, steps: personal, held: withCaseChoice, secrets: [...CASE, ...LOGIN] });
    expect(draft.problems).toEqual([]);
    const text = JSON.stringify(draft.profile).toLowerCase();
    for (const secret of [...CASE, ...LOGIN]) expect(text).not.toContain(secret.toLowerCase());
    // Left out, the defaults stand.
    expect(draft.profile?.finalReviewPatterns).toBeUndefined();
    expect(draft.left.join('\n')).toMatch(/final-review pattern at step 2.*holds a value of the case/);
    expect(draft.left.join('\n')).toMatch(/\/apply\/8812\/extra at step 1: its path or a listed value holds a value of the case/);
  });

  it("gives each section's save the choosing values the run saw on any save of the same form", () => {
    const twoSections = [
      heldRequests[0]!,
      held(1, 'POST', '/apply/8812/business', [{ name: 'pan', fromCase: true }, { name: 'step', fromCase: false, value: 'next' }]),
      held(1, 'POST', '/apply/8812/owner', [{ name: 'owner', fromCase: true }, { name: 'step', fromCase: false, value: 'save' }]),
      held(1, 'POST', '/apply/8812/owner', [{ name: 'owner', fromCase: true }, { name: 'step', fromCase: false, value: 'next' }]),
      heldRequests[2]!,
    ];
    const draft = draftProfile({ given, boundStartUrl: `${BOUND}/`, steps, held: twoSections, secrets: CASE });
    const saves = PortalProfile.parse(draft.profile).requestMap.filter((e) => e.path.startsWith('/apply/*/') && e.kind === 'save');
    expect(saves.map((e) => [e.path, e.values])).toEqual([
      ['/apply/*/business', { step: ['next', 'save'] }],
      ['/apply/*/owner', { step: ['save', 'next'] }],
    ]);
    expect(draft.notes.find((n) => n.entry.includes('/apply/*/business'))?.from).toContain('step=save as seen on /apply/*/owner');
  });

  it('drafts no profile when the run never filed (no approved request led to a new number)', () => {
    const draft = draftProfile({ given, boundStartUrl: `${BOUND}/`, steps: [signIn, section, review], held: heldRequests.slice(0, 2), secrets: CASE });
    expect(draft.profile).toBeNull();
    expect(draft.problems[0]).toMatch(/no filing found/);
  });
});

describe('numberPattern', () => {
  it('keeps letters and separators and counts digits', () => {
    expect(numberPattern('SHP-2026-000123')).toBe('SHP-\\d{4}-\\d{6}');
    expect(numberPattern('TN/ELE/26/00042')).toBe('TN\\/ELE\\/\\d{2}\\/\\d{5}');
    expect(new RegExp(numberPattern('TN/ELE/26/00042')).test('TN/ELE/27/99999')).toBe(true);
  });
});

describe('heldAnswerOf', () => {
  it('keeps names and origins; a value only of a choosing field or a tick not from the case (never a login, a token or a case value)', () => {
    const req = {
      runId: 'run-1',
      step: 3,
      request: {
        method: 'post',
        url: `${BOUND}/apply/8812/business`,
        rule: 'unmapped-request',
        reason: 'r',
        cause: 'click button "Next" (step 3, allowed without approval)',
        values: [
          { name: 'trade_name', value: 'Lakshmi Stores', origin: 'case', field: 'business_name' },
          { name: '_action', value: 'next', origin: 'not_from_case' },
          { name: 'password', value: 'hunter2-secret', origin: 'not_from_case' },
          { name: 'csrf', value: 'a81f0c', origin: 'not_from_case' },
          { name: 'open_sundays', value: 'yes', origin: 'not_from_case' },
          { name: 'notes', value: '', origin: 'not_from_case' },
        ],
      },
      verdict: { verdict: 'needs_approval', rule: 'commit-gate', reason: 'r' },
    } as unknown as ApprovalRequest;
    const answer = heldAnswerOf(req, { decision: 'approve', by: 'clerk', remember: 'save' });
    expect(answer).toEqual({
      step: 3,
      method: 'POST',
      url: `${BOUND}/apply/8812/business`,
      rule: 'unmapped-request',
      cause: 'click button "Next" (step 3, allowed without approval)',
      byPage: false,
      fields: [
        { name: 'trade_name', fromCase: true },
        { name: '_action', fromCase: false, value: 'next' },
        { name: 'password', fromCase: false },
        { name: 'csrf', fromCase: false },
        { name: 'open_sundays', fromCase: false, value: 'yes' },
        { name: 'notes', fromCase: true },
      ],
      decision: 'approve',
      remember: 'save',
    });
  });
});
