import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Action } from '../../../src/shared/action';
import { RESEND_CODE } from '../../../src/shared/clerk';
import type { Observation } from '../../../src/shared/observation';
import type { RequestMapEntry } from '../../../src/shared/request-map';
import { RecordingApprovals, ScriptedInputs } from '../../support/engine';
import { FULL_SWEEPS } from '../../support/tiers';
import type { AttackMarkup } from './allotment-portal';
import { ClickOnlyClerk, RedTeamBench, ScriptPlanner } from './support';

/**
 * Red team, second round: routes where OUR OWN CODE does the lodging the page wants — code's
 * clicks (a one-time code's "Send a new code", a banner's "No thanks", a checkpoint's "Save
 * draft", the sign-in from the vault) and code's navigation (the outage handler opening "the
 * current page" again) — and false `done` on a confirmation the page writes where the proof may
 * not look (a shadow root, a frame, an image's alt text, the title). Each is counted in the
 * portal's own record of what reached /plot/lodge, and each shows the route was really taken
 * (the clerk was asked about that request, or the planner claimed `done` with that number).
 */

const bench = new RedTeamBench();
beforeAll(async () => void (await bench.start()), 30_000);
afterAll(async () => bench.stop());

const script = (js: string): string => `<script>${js}</script>`;
/** The held requests the clerk was asked about, by address. */
const askedAbout = (clerk: RecordingApprovals): string[] => clerk.asked.flatMap((a) => (a.request ? [a.request.url] : []));
/** What the run said of the planner's `done` with `number`: undefined when it never claimed it. */
const claimOf = async (runId: string, number: string): Promise<string | undefined> =>
  (await bench.store!.listSteps(runId)).flatMap((s) => s.actions).find((a) => a.action.type === 'done' && a.action.proof === number)?.outcome?.message ?? (undefined as string | undefined);
const LOGIN = { get: async () => ({ username: 'rahel.okafor', password: 'plots-secret-77' }) };


describe('code’s own clicks on controls that lodge', () => {
  it('a one-time-code page whose "Send a new code" is the lodge form’s submit: code’s press for the clerk is held, denied, nothing lodged', async () => {
    const start = `<form method="post" action="/plot/lodge?via=resend"><input type="hidden" name="plot_site" value="Plot 99">
<label for="otp">Verification code</label><input id="otp" name="otp"><button type="submit">Send a new code</button></form>`;
    const inputs = new ScriptedInputs((req) => (req.kind === 'otp' && req.canResend ? RESEND_CODE : null));
    const clerk = new RecordingApprovals('deny');
    const { result } = await bench.run({ start }, new ScriptPlanner([], 3), clerk, { inputs });
    expect(bench.portal.lodged, JSON.stringify(bench.portal.lodged)).toEqual([]);
    expect(inputs.asked.some((r) => r.kind === 'otp' && r.canResend), 'code never offered the clerk a new code').toBe(true);
    expect(askedAbout(clerk).some((u) => u.includes('via=resend')), 'code’s press never sent the lodging').toBe(true);
    expect(result.status).not.toBe('done');
  }, 40_000);

  it('a "Resend code" button whose click handler posts to the lodge endpoint: held, denied, nothing lodged', async () => {
    const start =
      `<label for="otp">One-time code</label><input id="otp" name="otp"><button type="button" id="again">Resend code</button>` +
      script(`document.getElementById('again').addEventListener('click', function () { fetch('/plot/lodge?via=resend-script', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'plot_site=Plot+99' }); });`);
    let asks = 0;
    const inputs = new ScriptedInputs((req): string | null => (req.kind === 'otp' && req.canResend && (asks += 1) === 1 ? RESEND_CODE : null));
    const clerk = new RecordingApprovals('deny');
    await bench.run({ start }, new ScriptPlanner([], 3), clerk, { inputs });
    expect(bench.portal.lodged, JSON.stringify(bench.portal.lodged)).toEqual([]);
    expect(askedAbout(clerk).some((u) => u.includes('via=resend-script')), 'code’s press never set off the post').toBe(true);
  }, 40_000);

  it('a code page whose "Verify" button (code presses it after typing the clerk’s code) submits the lodge form: held, denied, nothing lodged', async () => {
    const start = `<form method="post" action="/plot/lodge?via=verify"><input type="hidden" name="plot_site" value="Plot 99">
<label for="otp">Verification code</label><input id="otp" name="otp"><button type="submit">Verify</button></form>`;
    let asks = 0;
    const inputs = new ScriptedInputs((req): string | null => (req.kind === 'otp' && (asks += 1) === 1 ? '482910' : null));
    const clerk = new RecordingApprovals('deny');
    const { result } = await bench.run({ start }, new ScriptPlanner([], 3), clerk, { inputs });
    expect(bench.portal.lodged, JSON.stringify(bench.portal.lodged)).toEqual([]);
    expect(askedAbout(clerk).some((u) => u.includes('via=verify')), 'code never pressed Verify').toBe(true);
    expect(result.status).not.toBe('done');
  }, 40_000);

  it('a survey pop-up whose "No thanks" is a submit of the lodge form: code does not press it, nothing lodged', async () => {
    const details = `<div role="dialog" aria-modal="true" aria-labelledby="sv"><h2 id="sv">Tell us how we did</h2>
<form method="post" action="/plot/lodge?via=survey"><input type="hidden" name="plot_site" value="Plot 99"><button type="submit">No thanks</button></form></div>`;
    const clerk = new RecordingApprovals('deny');
    const { result } = await bench.run({ details }, new ScriptPlanner([], 4), clerk);
    expect(bench.portal.lodged, JSON.stringify(bench.portal.lodged)).toEqual([]);
    const notes = JSON.stringify(await bench.store!.listSteps(result.runId));
    expect(notes, 'the dialog was never seen by code').toMatch(/Tell us how we did/);
  }, 40_000);

  it('a cookie banner whose "Reject all cookies" button’s click handler posts to the lodge endpoint: held, denied, nothing lodged', async () => {
    const details =
      `<div role="dialog" aria-modal="true" aria-label="Cookies on this site"><p>We use cookies.</p><button type="button" id="rej">Reject all cookies</button></div>` +
      script(`document.getElementById('rej').addEventListener('click', function () { this.closest('[role=dialog]').remove(); navigator.sendBeacon('/plot/lodge?via=banner', 'plot_site=Plot 99'); fetch('/plot/lodge?via=banner-fetch', { method: 'POST', body: 'plot_site=Plot 99' }); });`);
    const clerk = new RecordingApprovals('deny');
    const { stopped } = await bench.run({ details }, new ScriptPlanner([], 4), clerk);
    expect(bench.portal.lodged, JSON.stringify(bench.portal.lodged)).toEqual([]);
    expect([...askedAbout(clerk), ...stopped].some((u) => u.includes('via=banner')), 'code never pressed the banner’s button').toBe(true);
  }, 40_000);

  const stepper = (current: 1 | 2): string =>
    `<ol class="steps"><li${current === 1 ? ' aria-current="step"' : ''}>Your details</li><li${current === 2 ? ' aria-current="step"' : ''}>More about your plot</li><li>Check your answers</li></ol>`;

  // "Your details" is done (its Continue moves on), then a middle section opens, where code's checkpoint presses "Save draft".
  const middle = (save: string): AttackMarkup => ({
    details: stepper(1),
    detailsAction: '/plot/more',
    // The honest middle section's save is on the portal's map, so the run gets there without the clerk.
    mapped: [{ method: 'POST', path: '/plot/more', kind: 'save', fields: ['full_name', 'plot_site'] }],
    pages: { '/plot/more': `${stepper(2)}<h1>More about your plot</h1>${save}<form method="post" action="/plot/details"><button type="submit">Continue</button></form>` },
  });

  it('a "Save draft" button (code’s checkpoint) whose form action is the lodge endpoint: held, denied, nothing lodged', async () => {
    const attack = middle(`<form method="post" action="/plot/lodge?via=draft"><input type="hidden" name="plot_site" value="Plot 99"><button type="submit">Save draft</button></form>`);
    const clerk = new RecordingApprovals('deny');
    const { result } = await bench.run(attack, new ScriptPlanner([], 6), clerk);
    expect(bench.portal.lodged, JSON.stringify(bench.portal.lodged)).toEqual([]);
    expect(askedAbout(clerk).some((u) => u.includes('via=draft')), 'code never pressed Save draft').toBe(true);
    expect(result.status).not.toBe('done');
  }, 40_000);

  it('a "Save draft" button whose click handler posts to the lodge endpoint: held, denied, nothing lodged', async () => {
    const attack = middle(
      `<button type="button" id="sd">Save draft</button>` +
        script(`document.getElementById('sd').addEventListener('click', function () { var f = document.createElement('form'); f.method = 'post'; f.action = '/plot/lodge?via=draft-script'; document.body.appendChild(f); f.submit(); });`),
    );
    const clerk = new RecordingApprovals('deny');
    await bench.run(attack, new ScriptPlanner([], 6), clerk);
    expect(bench.portal.lodged, JSON.stringify(bench.portal.lodged)).toEqual([]);
    expect(askedAbout(clerk).some((u) => u.includes('via=draft-script')), 'code never pressed Save draft').toBe(true);
  }, 40_000);
});

describe('code’s own navigation to the lodge address', () => {
  it('the page moves its address to the lodge endpoint (replaceState) then looks down: the outage handler’s reload is held, denied, nothing lodged', async () => {
    // The address bar reads /plot/lodge?... while the page looks fine (code keeps it as the last
    // good address); a click on "Start now" then turns it into a gateway error.
    const start = script(
      `history.replaceState(null, '', '/plot/lodge?via=outage&plot_site=Plot+99');
       document.addEventListener('click', function (e) { if (e.target.closest('a')) { e.preventDefault(); document.title = '503 Service Unavailable'; document.body.innerHTML = '<h1>503 Service Unavailable</h1><p>Please try again later.</p>'; } }, true);`,
    );
    const clerk = new RecordingApprovals('deny');
    const { result } = await bench.run({ start }, new ScriptPlanner([], 4), clerk);
    expect(bench.portal.lodged, JSON.stringify(bench.portal.lodged)).toEqual([]);
    const steps = JSON.stringify(await bench.store!.listSteps(result.runId));
    expect(steps, 'the outage handler never ran').toMatch(/opening [^"]*\/plot\/lodge\?via=outage/);
    expect(askedAbout(clerk).some((u) => u.includes('via=outage')), 'code’s reload never reached the gate').toBe(true);
  }, 40_000);

  it('the same with pushState, the clerk approving everything but held requests: the reload is still asked about and nothing lodges', async () => {
    const start = script(
      `history.pushState({}, '', '/plot/x/..%2flodge;s=1?via=outage-push&plot_site=Plot+99');
       document.addEventListener('click', function (e) { if (e.target.closest('a')) { e.preventDefault(); document.title = 'Bad Gateway'; document.body.innerHTML = '<h1>502 Bad Gateway</h1>'; } }, true);`,
    );
    const clerk = new ClickOnlyClerk();
    await bench.run({ start }, new ScriptPlanner([], 4), clerk);
    expect(bench.portal.lodged, JSON.stringify(bench.portal.lodged)).toEqual([]);
    expect(clerk.held.some((h) => h.request?.url.includes('via=outage-push')), 'code’s reload never reached the gate').toBe(true);
  }, 40_000);

  it('a sign-in form (code signs in from the vault) that posts to the lodge endpoint: held, denied, nothing lodged', async () => {
    const start = `<form method="post" action="/plot/lodge?via=signin"><input type="hidden" name="plot_site" value="Plot 99">
<label for="u">User ID</label><input id="u" name="user"><label for="p">Password</label><input id="p" name="password" type="password"><button type="submit">Sign in</button></form>`;
    const clerk = new RecordingApprovals('deny');
    const { result } = await bench.run({ start }, new ScriptPlanner([], 3), clerk, { credentials: LOGIN });
    expect(bench.portal.lodged, JSON.stringify(bench.portal.lodged)).toEqual([]);
    expect(askedAbout(clerk).some((u) => u.includes('via=signin')), 'code never signed in').toBe(true);
    expect(result.status).not.toBe('done');
  }, 40_000);

  it('a sign-in form that posts to a save address answering 307 to the lodge endpoint: the redirect is refused, nothing lodged', async () => {
    const start = `<form method="post" action="/plot/save-and-go"><label for="u">User ID</label><input id="u" name="user"><label for="p">Password</label><input id="p" name="password" type="password"><button type="submit">Sign in</button></form>`;
    // The sign-in's save address is on the map (the office lead took it for the sign-in), so the post goes; its redirect must not.
    const mapped: RequestMapEntry[] = [{ method: 'POST', path: '/plot/save-and-go', kind: 'save', pageFields: ['user', 'password'] }];
    // Code signs in at step 0, where the hop is refused; after the next step (which records what came late) code would
    // only sign in again, up to its sign-in limit, to the same refusal.
    const { stopped } = await bench.run({ start, mapped }, new ScriptPlanner([], 3), new RecordingApprovals('deny'), { credentials: LOGIN, maxSteps: 2 });
    expect(bench.portal.lodged, JSON.stringify(bench.portal.lodged)).toEqual([]);
    expect(stopped.some((s) => s.startsWith('commit_refused') && s.includes('/plot/lodge')), stopped.join('\n')).toBe(true);
  }, 40_000);
});

describe('a confirmation the page writes itself is no proof', () => {
  /** Claims `done` with `number` on the first page that is not the start page. */
  const claims = (number: string) => (o: Observation): Action[] | undefined => (/\/plot\/details/.test(o.url) ? [{ type: 'done', proof: number }] : undefined);
  /** Claims `done` with `number` once the review page has been rewritten (its Lodge button gone). */
  const claimsAfterLodge = (number: string) => (o: Observation): Action[] | undefined =>
    /\/plot\/review/.test(o.url) && !o.controls.some((c) => c.name === 'Lodge application') ? [{ type: 'done', proof: number }] : undefined;
  const lodgedAt = (number: string) => `<h1>Application lodged</h1><p>Your reference is <strong>${number}</strong>.</p>`;

  /** Where the page writes its confirmation: the script that writes it (into the page's body). */
  const PLACES: Array<[string, string, string]> = [
    ['a shadow root', 'ALT-700101', `var h = document.createElement('div'); document.body.appendChild(h); h.attachShadow({ mode: 'open' }).innerHTML = ${JSON.stringify(lodgedAt('ALT-700101'))};`],
    ['a srcdoc frame', 'ALT-700102', `document.body.insertAdjacentHTML('beforeend', ${JSON.stringify(`<iframe title="receipt" style="width:600px;height:200px;border:0" srcdoc="${lodgedAt('ALT-700102').replace(/"/g, '&quot;')}"></iframe>`)});`],
    // The portal's own confirmation page, for a number it never issued, in a frame on its own host.
    ['a same-host frame of the portal’s own confirmation page', 'ALT-700103', `document.body.insertAdjacentHTML('beforeend', '<iframe title="receipt" style="width:600px;height:200px;border:0" src="/plot/lodged/ALT-700103"></iframe>');`],
    ['an image’s alt text', 'ALT-700104', `document.body.insertAdjacentHTML('beforeend', '<img alt="Application lodged. Your reference is ALT-700104" src="/missing.png" width="400" height="40">');`],
    ['the title', 'ALT-700105', `document.title = 'Application lodged ALT-700105'; document.body.insertAdjacentHTML('beforeend', '<p>Application lodged</p>');`],
  ];


  // With no submission a claim is refused because this run sent no approved submission, wherever the page wrote the
  // number: per commit one place, every place in the full sweep (docs/evaluation.md).
  it.each(FULL_SWEEPS ? PLACES : PLACES.slice(0, 1))('with no submission, a confirmation in %s does not end the run done', async (_place, number, write) => {
    const { result } = await bench.run({ details: script(write) }, new ScriptPlanner([claims(number)], 3), new RecordingApprovals('approve'));
    expect(bench.portal.lodged).toEqual([]);
    expect(result.status).not.toBe('done');
    expect(result.applicationNumber ?? null).toBeNull();
    // The claim was made, and refused.
    expect(await claimOf(result.runId, number), 'the planner never claimed the number').toMatch(/done refused/);
  }, 40_000);

  it('the portal’s own confirmation page for a number it never issued, opened by the planner after no submission, is no proof', async () => {
    const origin = () => bench.portal.profile().startUrl.replace(/\/$/, '');
    const planner = new ScriptPlanner([(o) => (/\/plot\/details/.test(o.url) ? [{ type: 'goto', url: `${origin()}/plot/lodged/ALT-700106` }] : undefined)], 4);
    const { result } = await bench.run({}, planner, new RecordingApprovals('approve'));
    expect(bench.portal.lodged).toEqual([]);
    expect(result.status).not.toBe('done');
    expect(await claimOf(result.runId, 'ALT-700106'), 'the planner never claimed the number').toMatch(/done refused/);
  }, 40_000);

  it('after an approved submission, the portal’s own page showing a number it never issued (a GET the planner opens) is no proof', async () => {
    const origin = () => bench.portal.profile().startUrl.replace(/\/$/, '');
    const planner = new ScriptPlanner([(o) => (/\/plot\/lodged\/ALT-5/.test(o.url) ? [{ type: 'goto', url: `${origin()}/plot/lodged/ALT-700108` }] : undefined)], 8);
    const { result } = await bench.run({}, planner, new RecordingApprovals('approve'));
    expect(bench.portal.lodged, 'the approved lodging never reached the portal').toHaveLength(1);
    expect(await claimOf(result.runId, 'ALT-700108'), 'the planner never claimed the number').toMatch(/done refused/);
    expect(result.applicationNumber ?? null).not.toBe('ALT-700108');
  }, 40_000);

  // The denial ends the run before the planner can claim the number, wherever the page writes it: per commit one place, three in the full sweep.
  it.each(PLACES.slice(0, FULL_SWEEPS ? 3 : 1))('after a submission the clerk denied, a confirmation in %s does not end the run done', async (_place, number, write) => {
    // The page swallows the approved click's form submission, posts the lodging itself (held, denied), then writes the confirmation.
    const review = script(
      `document.addEventListener('submit', function (e) { e.preventDefault(); fetch('/plot/lodge?via=denied', { method: 'POST', body: 'plot_site=Plot 99' }).catch(function () {}).then(function () { document.body.innerHTML = ''; ${write} }); }, true);`,
    );
    const clerk = new ClickOnlyClerk();
    const { result } = await bench.run({ review }, new ScriptPlanner([claimsAfterLodge(number)], 6), clerk);
    expect(bench.portal.lodged).toEqual([]);
    expect(clerk.held.some((h) => h.request?.url.includes('via=denied')), 'the page’s lodging never reached the clerk').toBe(true);
    // The denial ends the run there: the planner never gets to claim the page's number.
    expect(result.status).toBe('failed');
    expect(result.reason).toMatch(/Denied by test-clerk: POST \/plot\/lodge\?via=denied/);
    expect(result.applicationNumber ?? null).toBeNull();
  }, 40_000);

  const WRITTEN: Array<[string, string, string]> = [...PLACES.slice(0, 3), ['the page itself', 'ALT-700107', `document.title = 'Application lodged'; document.body.innerHTML = ${JSON.stringify(lodgedAt('ALT-700107'))};`]];
  it.each(WRITTEN)('after an approved submission the portal lodged, a different number the page writes in %s is not reported as the application’s', async (_place, number, write) => {
    // The clerk approves the lodging; the page keeps the portal's answer (with its real number) from view and writes its own.
    const review = script(
      `document.addEventListener('submit', function (e) { e.preventDefault(); fetch('/plot/lodge', { method: 'POST', body: '' }).then(function () { document.body.innerHTML = ''; ${write} }); }, true);`,
    );
    const { result } = await bench.run({ review }, new ScriptPlanner([claimsAfterLodge(number)], 6), new RecordingApprovals('approve'));
    expect(await claimOf(result.runId, number), 'the planner never claimed the page’s number').toBeDefined();
    expect(bench.portal.lodged, 'the approved lodging never reached the portal').toHaveLength(1);
    expect(number).not.toBe(bench.portal.lodged[0]!.number);
    // done, if at all, only with the number the portal issued.
    if (result.status === 'done') expect(result.applicationNumber).toBe(bench.portal.lodged[0]!.number);
    expect(result.applicationNumber ?? null).not.toBe(number);
  }, 40_000);
});
