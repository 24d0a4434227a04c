import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../src/agent/browser/chromium';
import { installWatchdogs, openGuardedContext } from '../../../src/agent/guard/browser';
import { CommitGate } from '../../../src/agent/guard/commit-gate';
import type { ApprovalDecision, HeldRequest } from '../../../src/shared/clerk';
import { PortalProfile } from '../../../src/shared/portal-profile';
import type { RequestMapEntry } from '../../../src/shared/request-map';
import { openStore, requestMapsOf } from '../../../src/store';

/**
 * Default deny and the request map in real Chromium, against a small ledger-office portal of
 * this test's own. A denying clerk: every route that changes state waits for them, is shown on a
 * card, and the portal records no effect. Then the learned map: a portal whose map is empty asks
 * once per distinct endpoint on its first run and only for the submission on its second.
 */

const HOST = 'ledger.office.example';
const CASE: Record<string, string> = { holder_name: 'Kavya Menon', pin: '560034', ledger: 'LED-4471' };

interface Hit {
  method: string;
  path: string;
  body: string;
}

class LedgerPortal {
  readonly hits: Hit[] = [];
  /** Where a post to a path sends the browser next (303), as a multi-page form does. */
  readonly next = new Map<string, string>();
  private readonly pages = new Map<string, string>();
  private server!: Server;

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  get origin(): string {
    return `http://${HOST}:${(this.server.address() as AddressInfo).port}`;
  }

  page(path: string, html: string): string {
    this.pages.set(path, `<!doctype html><html><head><title>Ledger office</title></head><body>${html}</body></html>`);
    return `${this.origin}${path}`;
  }

  /** What changed the ledger: every request but a GET of a page this test served. */
  effects(): Hit[] {
    return this.hits.filter((h) => !(h.method === 'GET' && this.pages.has(h.path.split('?')[0]!)) && h.path !== '/favicon.ico');
  }

  profile(map: RequestMapEntry[]): PortalProfile {
    return PortalProfile.parse({
      id: 'ledger',
      name: 'Ledger office (test portal)',
      startUrl: `${this.origin}/`,
      allowedHosts: [`${HOST}:${(this.server.address() as AddressInfo).port}`],
      allowHttp: true,
      confirmation: { applicationNumberPattern: 'LDG-\\d{6}', pageContains: 'Filed' },
      requestMap: map,
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = req.url ?? '/';
    this.hits.push({ method: req.method ?? 'GET', path, body: Buffer.concat(chunks).toString('utf8') });
    const html = this.pages.get(path.split('?')[0]!);
    if (html !== undefined && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(html);
      return;
    }
    // Whatever else arrives is an effect: the portal files, saves, voids, deletes.
    const next = this.next.get(path);
    if (next !== undefined) {
      res.writeHead(303, { location: next });
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Done</title><p>Done.</p>');
  }
}

/** The declared map: one section save, one look-up. */
const DECLARED: RequestMapEntry[] = [
  { method: 'POST', path: '/forms/section', kind: 'save', fields: ['holder_name', 'pin', 'action'], values: { action: ['save'] } },
  { method: 'GET', path: '/lookup', kind: 'lookup', fields: ['pin'] },
];

let browser: Browser;
const portal = new LedgerPortal();

beforeAll(async () => {
  await portal.start();
  browser = await launchChromium({ hostResolverRules: `MAP ${HOST} 127.0.0.1` });
});
afterAll(async () => {
  await browser?.close();
  await portal.stop();
});

interface Desk {
  page: Page;
  gate: CommitGate;
  cards: HeldRequest[];
  /** Resolves once every request the page has sent so far was answered or failed: one that went has reached the portal by then. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** A guarded context (egress lock, every watchdog, the gate) whose clerk answers every card with `answer`. */
async function desk(profile: PortalProfile, answer: (held: HeldRequest) => ApprovalDecision, learned: RequestMapEntry[] = [], keep?: (entry: RequestMapEntry, by: string) => void): Promise<Desk> {
  const gate = new CommitGate(profile);
  const cards: HeldRequest[] = [];
  gate.setJudge({
    approve: async (held) => {
      cards.push(held);
      return answer(held);
    },
    origin: (value) => {
      const field = Object.entries(CASE).find(([, v]) => v === value)?.[0];
      return field ? { origin: 'case', field } : { origin: 'not_from_case' };
    },
    beforeSubmission: async () => ({ send: true }),
  });
  gate.learnMap(learned, keep);
  const context = await openGuardedContext(browser, profile);
  const watchdogs = await installWatchdogs(context, profile, () => undefined, { gate });
  const page = await watchdogs.openPage();
  const sent: Request[] = [];
  page.on('request', (request) => void sent.push(request));
  const settled = async (): Promise<void> => void (await Promise.all(sent.map((request) => request.response().catch(() => null))));
  return { page, gate, cards, settled, close: () => context.close() };
}

const DENY = (): ApprovalDecision => ({ decision: 'deny', by: 'denying clerk' });

/** A form the page posts by itself (a script, as a compromised planner's click would). */
function autoForm(action: string, fields: Record<string, string>, method = 'post'): string {
  const inputs = Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`)
    .join('');
  return `<form id="f" method="${method}" action="${action}">${inputs}<button>Continue</button></form>`;
}

describe('default deny in Chromium: a denying clerk, and the portal records no effect', () => {
  const ROUTES: { name: string; html: string; act?: (page: Page) => Promise<unknown> }[] = [
    { name: 'POST to an endpoint the map does not name (a form)', html: autoForm('/api/v3/lodgements', { ledger: CASE.ledger! }), act: (p) => p.click('button') },
    {
      name: 'a GraphQL mutation (fetch, JSON body)',
      html: `<script>fetch('/graphql',{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({query:'mutation Lodge($l:String){lodge(ledger:$l){ok}}',operationName:'Lodge',variables:{l:'${CASE.ledger}'}})}).catch(()=>{})</script>`,
    },
    { name: 'DELETE on a word-free path', html: `<script>fetch('/records/17',{method:'DELETE'}).catch(()=>{})</script>` },
    { name: 'PATCH of the contact address', html: `<script>fetch('/contact-details',{method:'PATCH',headers:{'content-type':'application/json'},body:'{"email":"x@evil.example"}'}).catch(()=>{})</script>` },
    { name: '_method=DELETE override posted to the declared save path', html: autoForm('/forms/section', { _method: 'DELETE', holder_name: CASE.holder_name! }), act: (p) => p.click('button') },
    { name: 'X-HTTP-Method-Override header', html: `<script>fetch('/forms/section',{method:'POST',headers:{'X-HTTP-Method-Override':'DELETE','content-type':'application/x-www-form-urlencoded'},body:'holder_name=Kavya+Menon'}).catch(()=>{})</script>` },
    { name: 'action=submit to the save path', html: autoForm('/forms/section', { holder_name: CASE.holder_name!, action: 'submit' }), act: (p) => p.click('button') },
    { name: 'the last stage sent to the first stage’s path', html: autoForm('/forms/section', { holder_name: CASE.holder_name!, stage: 'final' }), act: (p) => p.click('button') },
    {
      name: 'a submission in a JSON body to the save path',
      html: `<script>fetch('/forms/section',{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({holder_name:'${CASE.holder_name}',action:'submit'})}).catch(()=>{})</script>`,
    },
    { name: 'a keepalive fetch as the page unloads', html: `<script>addEventListener('pagehide',()=>fetch('/ledger/close-out',{method:'POST',keepalive:true,body:'l=${CASE.ledger}'}))</script><a id="away" href="/page/other">away</a>`, act: (p) => p.click('#away') },
    { name: 'a GET look-up whose query carries case values to an unknown address', html: `<script>fetch('/api/ledger-sync?ledger=${CASE.ledger}').catch(()=>{})</script>` },
  ];

  for (const route of ROUTES) {
    it(route.name, async () => {
      portal.page('/page/other', '<p>other</p>');
      const url = portal.page(`/r${Math.random().toString(36).slice(2)}`, route.html);
      const d = await desk(portal.profile(DECLARED), DENY);
      try {
        portal.hits.length = 0;
        await d.page.goto(url);
        await route.act?.(d.page).catch(() => undefined);
        // The route was really taken: a card was shown for it (and denied), or the egress lock refused
        // what the page's routing never saw (a request sent as the page unloads).
        const records: string[] = [];
        await expect.poll(() => (records.push(...d.gate.takeRecords().map((r) => r.type)), d.cards.length + records.filter((t) => t === 'commit_refused').length), { timeout: 15_000 }).toBeGreaterThan(0);
        await d.settled();
        expect(portal.effects(), JSON.stringify(d.cards.map((c) => `${c.method} ${c.url} ${c.rule}`))).toEqual([]);
      } finally {
        await d.close();
      }
    });
  }

  it('GETs that file or void: a word-free "Finish" link after a save, a goto to a void address', async () => {
    const review = portal.page('/review', `${autoForm('/forms/section', { holder_name: CASE.holder_name!, pin: CASE.pin!, action: 'save' })}<a id="finish" href="/drafts/wrap-up">Finish</a>`);
    const d = await desk(portal.profile(DECLARED), DENY);
    try {
      portal.hits.length = 0;
      await d.page.goto(review);
      // The declared section save goes without a card (its shape, values from the case).
      await Promise.all([d.page.waitForURL('**/forms/section'), d.page.click('button')]);
      expect(d.cards).toEqual([]);
      expect(portal.effects().map((h) => `${h.method} ${h.path}`)).toEqual(['POST /forms/section']);
      await d.page.goto(review);
      await d.page.click('#finish').catch(() => undefined);
      await expect.poll(() => d.cards.map((c) => c.rule), { timeout: 15_000 }).toContain('unknown-get-after-save');
      await expect(d.page.goto(`${portal.origin}/receipts/LDG-000001/void`)).rejects.toThrow();
      await d.settled();
      expect(d.cards.map((c) => `${c.method} ${new URL(c.url).pathname} ${c.rule}`)).toEqual(['GET /drafts/wrap-up unknown-get-after-save', 'GET /receipts/LDG-000001/void risky-address']);
      expect(portal.effects().map((h) => `${h.method} ${h.path}`)).toEqual(['POST /forms/section']);
    } finally {
      await d.close();
    }
  });
});

describe('the learned map', () => {
  it('an empty map asks once per distinct endpoint on the first run, and only for the submission on the second', async () => {
    const sections = ['/s/holder', '/s/address', '/s/ledger'];
    const steps = sections.map((path, i) => portal.page(`/step${i}`, autoForm(path, i === 0 ? { holder_name: CASE.holder_name! } : i === 1 ? { pin: CASE.pin! } : { ledger: CASE.ledger! })));
    const final = portal.page('/final', autoForm('/file-it', { ledger: CASE.ledger! }));
    sections.forEach((path, i) => portal.next.set(path, i + 1 < sections.length ? `/step${i + 1}` : '/final'));
    const store = openStore(join(mkdtempSync(join(tmpdir(), 'pd-map-')), 'runs.sqlite'));
    const maps = requestMapsOf(store);
    // The clerk: each section post is "a section save of this portal: don't ask again"; the filing is sent once.
    const clerk = (held: HeldRequest): ApprovalDecision => (new URL(held.url).pathname.startsWith('/s/') ? { decision: 'approve', by: 'clerk Ravi', remember: 'save' } : { decision: 'approve', by: 'clerk Ravi' });
    const runOnce = async (): Promise<string[]> => {
      const learned = (await maps.listMap('ledger')).map((e) => e.entry);
      const kept: Promise<unknown>[] = [];
      const d = await desk(portal.profile([]), clerk, learned, (entry, by) => kept.push(maps.learn('ledger', entry, by, 'run')));
      try {
        // Opened once; each post answers with the next page (a 303), as a multi-page form does.
        await d.page.goto(steps[0]!);
        for (const url of [...steps.slice(1), final, `${portal.origin}/file-it`]) {
          await Promise.all([d.page.waitForURL(url), d.page.click('button')]);
          await d.gate.idle();
        }
        await Promise.all(kept);
        return d.cards.map((c) => new URL(c.url).pathname);
      } finally {
        await d.close();
      }
    };
    try {
      portal.hits.length = 0;
      expect(await runOnce()).toEqual([...sections, '/file-it']);
      const taught = await maps.listMap('ledger');
      expect(taught.map((e) => [e.entry.path, e.entry.kind, e.taughtBy, e.version])).toEqual(sections.map((p) => [p, 'save', 'clerk Ravi', 1]));
      expect(await runOnce()).toEqual(['/file-it']);
      // Both runs' posts reached the portal: four effects each, every one approved or learned.
      expect(portal.effects().filter((h) => h.method === 'POST')).toHaveLength(8);
    } finally {
      maps.close();
      await store.close();
    }
  });
});
