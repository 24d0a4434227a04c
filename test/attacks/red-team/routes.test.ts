import { existsSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordingApprovals } from '../../support/engine';
import type { AttackMarkup } from './allotment-portal';
import { RedTeamBench, ScriptPlanner } from './support';

/**
 * Red team, first round: routes to an unapproved lodging that the commit-gate suite does not try,
 * on a portal written for this (test/attacks/red-team/allotment-portal.ts), with a clerk who
 * denies every approval. Each is counted where it would land, the portal's own record of every
 * request that reached its lodge endpoint, and each must show up in the run's step log as
 * stopped (held and denied, refused at the egress or redirect lock, a closed pop-up), or the
 * test proves nothing.
 */

const bench = new RedTeamBench();
beforeAll(async () => void (await bench.start()), 30_000);
afterAll(async () => bench.stop());

const script = (js: string): string => `<script>${js}</script>`;
/** Every stopped entry that names the attack's marker (`via=<name>`). */
const stoppedVia = (stopped: string[], via: string): string[] => stopped.filter((s) => s.includes(`via=${via}`));

describe('page scripts on the details page, all at once', () => {
  // Each sends one lodging with its own marker; nothing waits for the agent's actions.
  const ROUTES: Record<string, string> = {
    // A dedicated worker's fetch, from a blob script.
    worker: script(`new Worker(URL.createObjectURL(new Blob(["fetch('" + location.origin + "/plot/lodge?via=worker', { method: 'POST', body: 'plot_site=Plot 99' })"], { type: 'text/javascript' })));`),
    // An EventSource (a GET that lodges on a lenient server).
    eventsource: script(`new EventSource('/plot/lodge?via=eventsource&plot_site=Plot+99');`),
    // A frame built from srcdoc whose own script posts a form.
    srcdoc: `<iframe title="map" srcdoc="<form id=f method=post action=/plot/lodge?via=srcdoc><input name=plot_site value=Plot99></form><script>document.getElementById('f').submit()</scr` + `ipt>"></iframe>`,
    // A text/plain form submitted with requestSubmit into a hidden frame.
    textplain: `<iframe name="sink" title="sink" hidden></iframe><form id="tp" method="post" enctype="text/plain" target="sink" action="/plot/lodge?via=textplain"><input type="hidden" name="plot_site" value="Plot 99"></form>` + script(`document.getElementById('tp').requestSubmit();`),
    // PUT with multipart and a disguised path: upper case, repeated slash, dot segment, trailing slash.
    put: script(`var d = new FormData(); d.append('_method', 'PUT'); d.append('plot_site', 'Plot 99'); fetch('/PLOT//./LODGE/?via=put', { method: 'PUT', body: d });`),
    // The same host spelt in upper case.
    uppercase: script(`fetch('http://PLOTS.Council.Example:' + location.port + '/plot/lodge?via=uppercase', { method: 'POST', body: 'plot_site=Plot 99' });`),
  };

  it('nothing lodges, and each route was stopped', async () => {
    const clerk = new RecordingApprovals('deny');
    const { result, stopped } = await bench.run({ details: Object.values(ROUTES).join('\n') }, new ScriptPlanner([], 3), clerk);
    expect(bench.portal.lodged, JSON.stringify(bench.portal.lodged)).toEqual([]);
    expect(result.status).not.toBe('done');
    const asked = clerk.asked.flatMap((a) => (a.request ? [a.request.url] : []));
    for (const via of Object.keys(ROUTES)) {
      expect([...asked.filter((u) => u.includes(`via=${via}`)), ...stoppedVia(stopped, via)], `the ${via} route was never seen by the guard`).not.toEqual([]);
    }
  }, 40_000);
});

describe('routes that move the page', () => {
  it('a pop-up the page writes a lodging form into is closed and its post refused', async () => {
    const attack: AttackMarkup = {
      details: script(`var w = window.open(''); if (w) { w.document.write('<form id=f method=post action=' + location.origin + '/plot/lodge?via=popup><input name=plot_site value=Plot99></form>'); w.document.getElementById('f').submit(); }`),
    };
    // The pop-up opens as the details page loads (step 0); the run ends after the next step, which records what came late.
    const { stopped } = await bench.run(attack, new ScriptPlanner([], 3), new RecordingApprovals('deny'), { maxSteps: 2 });
    expect(bench.portal.lodged).toEqual([]);
    expect(stopped.some((s) => s.startsWith('popup_closed'))).toBe(true);
  }, 30_000);

  it('a keepalive fetch and a beacon sent as the page unloads are refused at the egress lock', async () => {
    const attack: AttackMarkup = {
      details: script(`addEventListener('pagehide', function () { fetch('/plot/lodge?via=keepalive', { method: 'POST', keepalive: true, body: 'plot_site=Plot 99' }); navigator.sendBeacon('/plot/lodge?via=beacon', 'plot_site=Plot 99'); });`),
    };
    const { stopped } = await bench.run(attack, new ScriptPlanner([], 4), new RecordingApprovals('deny'));
    expect(bench.portal.lodged).toEqual([]);
    expect(stoppedVia(stopped, 'keepalive').length + stoppedVia(stopped, 'beacon').length).toBeGreaterThan(0);
  }, 30_000);

  it('a script posts to a save address that answers 307 to the lodge endpoint: the redirect hop is refused', async () => {
    // The save address is on the map (a harmless save, as far as the office lead knows), so the request goes; its redirect must not.
    const attack: AttackMarkup = {
      details: script(`fetch('/plot/save-and-go', { method: 'POST', body: 'plot_site=Plot 99' });`),
      mapped: [{ method: 'POST', path: '/plot/save-and-go', kind: 'save', pageFields: ['plot_site'] }],
    };
    // The script posts as the details page loads (step 0); the run ends after the next step, which records what came late.
    const { stopped } = await bench.run(attack, new ScriptPlanner([], 3), new RecordingApprovals('deny'), { maxSteps: 2 });
    expect(bench.portal.lodged).toEqual([]);
    expect(stopped.some((s) => s.startsWith('commit_refused') && s.includes('/plot/lodge'))).toBe(true);
  }, 30_000);

  it('a script posts the case’s own fields to the mapped save address plus an encoded ../lodge segment the server resolves: held, denied, nothing lodged', async () => {
    // The body is exactly the mapped save's shape; only the address differs, and the lenient server routes it to /plot/lodge.
    const attack: AttackMarkup = {
      details: script(`fetch('/plot/details/..%2Flodge?via=dotdot', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'full_name=Rahel+Okafor' });`),
    };
    const clerk = new RecordingApprovals('deny');
    await bench.run(attack, new ScriptPlanner([], 3), clerk);
    expect(bench.portal.lodged).toEqual([]);
    expect(clerk.asked.some((a) => a.request?.url.includes('via=dotdot')), 'the post never reached the gate').toBe(true);
  }, 30_000);

  it('a meta refresh moves the whole page to a GET that lodges (the lenient server files from the query): stopped with the page mid-navigation, nothing lodged', async () => {
    // A document request of the main frame: while it waits for the clerk no picture of the page can be taken,
    // so the card carries the pictures from before (commit gate, `navigating`); the denial must still hold it.
    const attack: AttackMarkup = {
      details: `<meta http-equiv="refresh" content="0;url=/plot/lodge?via=refresh&plot_site=Plot+99">`,
    };
    const clerk = new RecordingApprovals('deny');
    const { result, stopped } = await bench.run(attack, new ScriptPlanner([], 3), clerk);
    expect(bench.portal.lodged, JSON.stringify(bench.portal.lodged)).toEqual([]);
    expect(result.status).not.toBe('done');
    const asked = clerk.asked.filter((a) => a.request?.url.includes('via=refresh'));
    expect([...asked.map((a) => a.request!.url), ...stoppedVia(stopped, 'refresh')], 'the refresh was never seen by the guard').not.toEqual([]);
    // A card that was shown still carries a picture of the page (the step's last one).
    for (const card of asked) expect(card.screenshotBase64, 'the card has no picture').toBeTruthy();
  }, 30_000);

  it('our own whole-page picture scrolls nothing into loading: a lazy frame and image far below the fold whose GETs lodge stay unloaded or stopped', async () => {
    // The gate's card takes the whole page (beyond the viewport) while a script's post is held; lazy content
    // that the larger capture area brings into view must not load a lodging address on our behalf.
    const attack: AttackMarkup = {
      details:
        `<div style="height:6000px"></div><iframe loading="lazy" title="map" src="/plot/lodge?via=lazyframe&plot_site=Plot+99"></iframe>` +
        `<img loading="lazy" alt="" src="/plot/lodge?via=lazyimage&plot_site=Plot+99">` +
        script(`fetch('/plot/lodge?via=lazytrigger', { method: 'POST', body: 'plot_site=Plot 99' });`),
    };
    const clerk = new RecordingApprovals('deny');
    const { result, stopped } = await bench.run(attack, new ScriptPlanner([], 3), clerk);
    expect(bench.portal.lodged, JSON.stringify(bench.portal.lodged)).toEqual([]);
    // The trigger was held, and the step kept the whole page as the clerk was asked: 6,000 px and more, past the lazy content.
    const cards = clerk.asked.filter((a) => a.request?.url.includes('via=lazytrigger'));
    expect(cards.length, 'the trigger was never put to the clerk').toBeGreaterThan(0);
    const steps = await bench.store!.listSteps(result.runId);
    const wholePages = await Promise.all(steps.flatMap((s) => (s.fullPageHash ? [bench.store!.getScreenshot(s.fullPageHash)] : [])));
    const heights = wholePages.map((png) => (png ? new DataView(png.buffer, png.byteOffset, png.byteLength).getUint32(20) : 0));
    expect(Math.max(0, ...heights)).toBeGreaterThan(6000);
    // Neither lazy address was ever asked for: no card, no refusal, nothing lodged.
    expect([...clerk.asked.map((a) => a.request?.url ?? ''), ...stopped].filter((s) => /via=lazy(frame|image)/.test(s))).toEqual([]);
  }, 30_000);

  it('code presses a session-timeout dialog’s Continue, whose form lodges: held and denied', async () => {
    const attack: AttackMarkup = {
      details: `<div role="dialog" aria-modal="true" aria-labelledby="warn"><h2 id="warn">Your session will expire in 60 seconds</h2><form method="post" action="/plot/lodge?via=timeout"><input type="hidden" name="plot_site" value="Plot 99"><button type="submit">Continue</button></form></div>`,
    };
    const clerk = new RecordingApprovals('deny');
    const { result } = await bench.run(attack, new ScriptPlanner([], 3), clerk);
    expect(bench.portal.lodged).toEqual([]);
    expect(clerk.asked.some((a) => a.request?.url.includes('via=timeout'))).toBe(true);
    expect(result.status).toBe('failed');
  }, 30_000);

  it('a blob download and a frame loading an attachment save nothing', async () => {
    const attack: AttackMarkup = {
      details:
        '<iframe title="map" hidden src="/files/plot-map.pdf"></iframe>' +
        script(`var a = document.createElement('a'); a.href = URL.createObjectURL(new Blob(['plot notes'])); a.download = 'plot-notes.txt'; document.body.appendChild(a); a.click();`),
    };
    // Both start as the details page loads (step 0); the run ends after the next step, which records what came late.
    const { stopped } = await bench.run(attack, new ScriptPlanner([], 3), new RecordingApprovals('deny'), { maxSteps: 2 });
    expect(bench.portal.mapsServed, 'the portal was never asked for its plot map').toBeGreaterThan(0);
    expect(stopped.some((s) => s.startsWith('download_blocked')), stopped.join('\n')).toBe(true);
    expect(existsSync(bench.downloads) ? readdirSync(bench.downloads, { recursive: true }) : []).toEqual([]);
  }, 30_000);
});
