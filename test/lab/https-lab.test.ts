import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { egressLockOf, installWatchdogs, openGuardedContext } from '../../src/agent/guard/browser';
import { CommitGate, type GateRecord } from '../../src/agent/guard/commit-gate';
import { bindLabProfile, PORTALS, type PortalId } from '../../lab/index';
import { EngineBench } from '../support/engine';
import { continueSection, expectNoErrors, signIn } from './support/browse';
import { fillSection } from './support/form-filler';
import { loadCase, loadProfile } from './support/resources';

/**
 * The https lab (`startLab({ tls: true })`: a certificate authority made at lab start, given to the
 * run as the one extra CA its egress lock trusts for the portal): a whole form runs to done over
 * https, and requests no page routing sees (a SharedWorker's POST, a beacon and a keepalive fetch
 * as the page unloads) to the submit address, with a complete form behind them, are held by the
 * gate: with a clerk who denies, the lab's submission log stays empty. The whole lab suite runs on
 * this variant with `PORTAL_DESK_LAB_TLS=1` (the tests that start labs through test/support/engine.ts).
 */

const bench = new EngineBench({ tls: true });
beforeAll(async () => void (await bench.start()), 60_000);
afterAll(async () => bench.stop());

const CASE = 'shops-renewal-srinivas-iyer';

describe('the https lab', () => {
  it('serves every portal page over https, with certificates of its own CA', () => {
    expect(bench.lab.origin('shops')).toMatch(/^https:\/\/shops\.portal\.example:\d+$/);
    expect(bench.lab.tlsCa).toContain('BEGIN CERTIFICATE');
  });

  it('runs a whole form to done through the egress lock ending TLS, each request seen whole', async () => {
    const caseFile = bench.caseFile(`${CASE}.json`);
    const { store, ...result } = await bench.run(caseFile);
    expect(result.status, result.reason ?? '').toBe('done');
    const submissions = bench.lab.submissions({ clientId: caseFile.clientId });
    expect(submissions).toHaveLength(1);
    expect(result.applicationNumber).toBe(submissions[0]!.applicationNumber);
    // The step log holds the requests one by one, as https (not a tunnel's host and port only).
    const requests = (await store.listSteps(result.runId)).flatMap((s) => s.requests ?? []);
    expect(requests).toContainEqual(expect.objectContaining({ kind: 'https', method: 'POST', host: 'shops.portal.example', path: '/apply/submit', outcome: 'sent' }));
  }, 180_000);

  it('holds a SharedWorker POST, an unload beacon and a keepalive fetch to the submit address: a denying clerk, no submission', async () => {
    const caseFile = loadCase('shops-renewal-meera-kulkarni');
    const portal = caseFile.portal as PortalId;
    const profile = bindLabProfile(loadProfile(portal), bench.lab.port, bench.lab.scheme);
    bench.lab.configure(caseFile.clientId, { layout: 'original' });
    const context = await openGuardedContext(bench.browser, profile);
    const gate = new CommitGate(profile);
    const records: GateRecord[] = [];
    gate.onRecord((r) => records.push(r));
    // The clerk denies every card. Values are told as the run's judge tells them (gate-judge.ts:
    // a value equal to a case field is from the case), so the section saves fit the profile's
    // request map under default deny and go free; only what no save names is held.
    const origin = (value: string) => {
      const field = value === '' ? undefined : Object.entries(caseFile.fields).find(([, v]) => v !== null && v !== undefined && String(v) === value)?.[0];
      return field ? { origin: 'case' as const, field } : { origin: 'not_from_case' as const };
    };
    gate.setJudge({ approve: async () => ({ decision: 'deny', by: 'clerk:test' }), origin, beforeSubmission: async () => ({ send: true }) });
    try {
      const watchdogs = await installWatchdogs(context, profile, () => undefined, { gate });
      const page = await watchdogs.openPage();
      await page.goto(`${bench.lab.origin(portal)}/`);
      await signIn(page, bench.lab, portal, caseFile.clientId);
      await page.getByRole('link', { name: PORTALS[portal].wording.original.startLink }).click();
      for (let i = 0; i < PORTALS[portal].sections.original.length; i++) {
        await fillSection(page, caseFile);
        await continueSection(page, 'original');
        await expectNoErrors(page);
      }
      // The review page: the form is complete, so a submission reaching the portal would be filed.
      const form = page.locator('form:has(button:text("Submit application"))');
      const action = await form.evaluate((f: HTMLFormElement) => ({ url: f.action, body: new URLSearchParams(new FormData(f) as unknown as Record<string, string>).toString() }));
      expect(new URL(action.url).pathname).toBe('/apply/submit');
      await page.evaluate(({ url, body }) => {
        const source = `onconnect = async (e) => { const port = e.ports[0];
          await fetch(${JSON.stringify(new URL('/worker-ping', url).href)}).catch(() => null);
          const r = await fetch(${JSON.stringify(url)}, { method: 'POST', body: ${JSON.stringify(body)}, headers: { 'content-type': 'application/x-www-form-urlencoded' }, credentials: 'include' }).then((x) => 'status ' + x.status, () => 'network error');
          port.postMessage(r); };`;
        const worker = new SharedWorker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
        worker.port.onmessage = (e) => { document.title = `worker: ${String(e.data)}`; };
        worker.port.start();
        addEventListener('pagehide', () => {
          navigator.sendBeacon(url, new Blob([body], { type: 'application/x-www-form-urlencoded' }));
          void fetch(url, { method: 'POST', body, keepalive: true, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
        });
      }, action);
      await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('worker: network error');
      await page.goto(`${bench.lab.origin(portal)}/`);
      await expect.poll(() => records.filter((r) => r.url.startsWith(action.url)).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);

      // Nothing was filed: the lab's own submission log.
      expect(bench.lab.submissions({ clientId: caseFile.clientId })).toEqual([]);
      // The worker really ran over https (its harmless GET reached the lab), and its POST was refused at the egress lock.
      expect(bench.lab.requestLog().some((r) => r.path === '/worker-ping')).toBe(true);
      expect(records).toContainEqual(expect.objectContaining({ type: 'commit_refused', method: 'POST', url: action.url, detail: expect.stringContaining('at the egress lock') }));
      expect(egressLockOf(context)!.seesHttps).toBe(true);
    } finally {
      await context.close();
    }
  }, 120_000);
});
