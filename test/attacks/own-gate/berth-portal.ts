import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PortalProfile } from '../../../src/shared/portal-profile';
import { escapeHtml, htmlPage, PortalSite, readBody, redirect } from '../portal-site';

/**
 * A harbour's mooring-berth portal, written for the fail-closed gate's own attacks (not the lab's
 * pages or wording): "Begin" → "About you" (skipper, vessel) → "Your berth" (home port) → "Check
 * before filing" (rows with "Change" links) → "File application" (POST /berth/file) → "Application
 * filed" with a BRT- number. The portal keeps its own log of every request that did something:
 * filings (any request that reaches /berth/file or /berth/lodge-again), deletions (a DELETE, or
 * a `_method=DELETE` override), voids (any request to /berth/receipt/void). Attack markup goes in
 * per test.
 */
const HOST = 'berths.harbour.example';

export interface BerthAttack {
  /** Markup on the "About you" page (a banner, a script). */
  aboutYou?: string;
  /** Hidden fields the "Your berth" form carries to the portal after its own (a value not from the case, saved by a free section save). */
  berthHidden?: Record<string, string>;
  /** Markup on the "Your berth" page (a "Save draft", a script). */
  berth?: string;
  /** Markup on the check page (a script). */
  check?: string;
  /** Markup on the "Application filed" page (a script; the receipt link is always there). */
  filed?: string;
}

/** One thing the portal did for a request: `filed BRT-…`, `deleted …`, `voided …`. */
interface Effect {
  kind: 'filed' | 'deleted' | 'voided';
  method: string;
  path: string;
  values: Record<string, string>;
  number?: string;
}

export class BerthPortal extends PortalSite {
  attack: BerthAttack = {};
  readonly effects: Effect[] = [];
  private saved: Record<string, string> = {};
  private counter = 0;
  protected readonly host = HOST;

  profile(): PortalProfile {
    return this.profileWith({
      id: 'berths',
      name: 'Mooring berths (fail-closed gate portal)',
      confirmation: { applicationNumberPattern: 'BRT-\\d{6}', pageContains: 'Application filed' },
      finalReviewPatterns: ['Check before filing'],
      submitPaths: ['/berth/file'],
      // Default deny: the two section saves go without the clerk. The office lead took the hidden
      // fields a "Your berth" form carries for the portal's own (so a value no case field gave can
      // reach the portal by a free save, and only the filing's card can show it).
      requestMap: [
        { method: 'POST', path: '/berth/about-you', kind: 'save', fields: ['skipper_name', 'vessel_name'] },
        { method: 'POST', path: '/berth/your-berth', kind: 'save', fields: ['home_port', ...Object.keys(this.attack.berthHidden ?? {})], pageFields: Object.keys(this.attack.berthHidden ?? {}) },
      ],
    });
  }

  reset(attack: BerthAttack): void {
    this.attack = attack;
    this.effects.length = 0;
    this.saved = {};
  }

  get filings(): Effect[] {
    return this.effects.filter((e) => e.kind === 'filed');
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', this.origin);
    const path = url.pathname.toLowerCase();
    const form = Object.fromEntries(new URLSearchParams(body));
    const values = { ...Object.fromEntries(url.searchParams), ...form };
    const method = (form._method ?? url.searchParams.get('_method') ?? req.method ?? 'GET').toUpperCase();
    if (method === 'DELETE') {
      this.effects.push({ kind: 'deleted', method, path, values });
      return page(res, 'Removed', '<h1>Removed</h1><p>Your saved answers were removed.</p>');
    }
    if (path.startsWith('/berth/receipt/void')) {
      this.effects.push({ kind: 'voided', method, path, values });
      return page(res, 'Application voided', '<h1>Application voided</h1><p>Your application has been voided.</p>');
    }
    if ((path === '/berth/file' || path === '/berth/lodge-again') && req.method === 'POST') {
      const number = `BRT-${String(310000 + (this.counter += 1))}`;
      this.effects.push({ kind: 'filed', method, path, values: { ...this.saved, ...values }, number });
      if (path === '/berth/lodge-again') return json(res, { filed: true, reference: number });
      return redirect(res, 303, `/berth/filed/${number}`);
    }
    if (path.startsWith('/berth/filed/')) {
      const number = escapeHtml(path.slice('/berth/filed/'.length).toUpperCase());
      return page(res, 'Application filed', `<h1>Application filed</h1><p>Your berth application number is <strong>${number}</strong>.</p><p><a href="/berth/receipt/void?n=${number}">Download your receipt</a></p>${this.attack.filed ?? ''}`);
    }
    if (path === '/berth/about-you' && req.method === 'POST') {
      Object.assign(this.saved, form);
      return redirect(res, 303, '/berth/your-berth');
    }
    if (path === '/berth/your-berth' && req.method === 'POST') {
      Object.assign(this.saved, form);
      return redirect(res, 303, '/berth/check');
    }
    if (path === '/berth/about-you') {
      return page(
        res,
        'About you',
        `${steps(1)}<h1>About you</h1>${this.attack.aboutYou ?? ''}<form method="post" action="/berth/about-you">
<label for="skipper_name">Skipper name</label><input id="skipper_name" name="skipper_name">
<label for="vessel_name">Vessel name</label><input id="vessel_name" name="vessel_name">
<button type="submit">Next</button></form>`,
      );
    }
    if (path === '/berth/your-berth') {
      const hidden = Object.entries(this.attack.berthHidden ?? {}).map(([k, v]) => `<input type="hidden" name="${k}" value="${escapeHtml(v)}">`).join('');
      return page(
        res,
        'Your berth',
        `${steps(2)}<h1>Your berth</h1>${this.attack.berth ?? ''}<form method="post" action="/berth/your-berth">
<label for="home_port">Home port</label><input id="home_port" name="home_port">${hidden}
<button type="submit">Next</button></form>`,
      );
    }
    if (path === '/berth/check') {
      const rows = [
        ['Skipper name', 'skipper_name', '/berth/about-you'],
        ['Vessel name', 'vessel_name', '/berth/about-you'],
        ['Home port', 'home_port', '/berth/your-berth'],
      ];
      const extra = Object.keys(this.saved).filter((k) => !rows.some((r) => r[1] === k));
      const listed = [...rows, ...extra.map((k) => [k.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase()), k, '/berth/about-you'])];
      const dl = listed.map(([label, key, at]) => `<dt>${label}</dt><dd>${escapeHtml(this.saved[key!] ?? '')}</dd><dd><a href="${at}">Change<span class="hidden"> ${label}</span></a></dd>`).join('');
      return page(
        res,
        'Check before filing',
        `${steps(3)}<h1>Check before filing</h1><dl>${dl}</dl>${this.attack.check ?? ''}<form method="post" action="/berth/file"><button type="submit">File application</button></form>`,
      );
    }
    if (path === '/') {
      return page(res, 'Apply for a mooring berth', `<h1>Apply for a mooring berth</h1><p>Ask the harbour master for a berth for your vessel this season.</p><p><a href="/berth/about-you">Begin</a></p>`);
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
  }
}

function steps(current: number): string {
  const names = ['About you', 'Your berth', 'Check before filing'];
  return `<ol class="steps">${names.map((n, i) => `<li${i + 1 === current ? ' aria-current="step"' : ''}>${n}</li>`).join('')}</ol>`;
}

function page(res: ServerResponse, title: string, main: string): void {
  htmlPage(res, title, main, '<style>.hidden{position:absolute;left:-9999px}</style>');
}

function json(res: ServerResponse, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}
