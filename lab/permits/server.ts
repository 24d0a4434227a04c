import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { hostnameOf } from '../hosts';
import { findPermitsAttack, type PermitsAttack } from './attacks';
import { ADDRESSES_HOST, blankApplication, DECLARATION, DISTRICTS, DOCUMENT_SLOTS, PERMITS_HOST, WARDS, type PermitApplication } from './data';
import { applicant, confirmation, documents, finder, home, page, premises, receipt, review, type FieldErrors } from './pages';

/** One submitted application, as the portal received it. */
export interface PermitSubmission {
  applicationNumber: string;
  application: PermitApplication;
}

/** A running trade-permits portal: its two hosts on one loopback port, and what it received. */
export interface PermitsPortal {
  readonly port: number;
  /** `http://permits.portal.example:PORT` */
  readonly origin: string;
  readonly addressesOrigin: string;
  /** Chromium's `--host-resolver-rules` value that sends the portal's names to it. */
  readonly hostResolverRules: string;
  submissions(): PermitSubmission[];
  /** How often the session-timeout warning was answered "Continue session". */
  extensions(): number;
  /** Receipts asked for, by application number: `inTab` when a browser page asked (the new tab), not code's fetch. */
  receiptsOpened(): { applicationNumber: string; inTab: boolean }[];
  /**
   * From the next page the browser asks the portal for, the portal is down for `ms`: its pages
   * answer 503 Service Unavailable (nothing is stored), then it answers again. `outage(0)` ends an outage now.
   */
  outage(ms: number): void;
  /** The page requests answered 503 during outages, in order (`POST /apply/submit`). */
  outageAnswers(): readonly string[];
  /** Puts an attack page of `lab/permits/attacks.ts` on the portal (null: none), for every session from now on. */
  attack(id: string | null): void;
  /** Requests that reached this server for a host that is not one of the portal's (what an attack suite counts as landed). */
  foreignRequests(): { host: string; method: string; path: string; body: string; at: string }[];
  stop(): Promise<void>;
}

interface Session {
  app: PermitApplication;
  /** The session-timeout warning was answered on the documents page. */
  extended: boolean;
  /** The application numbers this session filed: "My applications" lists them, as a portal lists the signed-in user's own. */
  filed: string[];
}

interface Part {
  name: string;
  filename?: string;
  bytes: Buffer;
}

/** The parts of a multipart/form-data body (binary-safe). */
export function multipart(body: Buffer, contentType: string): Part[] {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!boundary) return [];
  const marker = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const parts: Part[] = [];
  let at = body.indexOf(marker);
  while (at >= 0) {
    const next = body.indexOf(marker, at + marker.length);
    if (next < 0) break;
    const chunk = body.subarray(at + marker.length + 2, next - 2);
    const split = chunk.indexOf('\r\n\r\n');
    if (split >= 0) {
      const head = chunk.subarray(0, split).toString('utf8');
      const name = /name="([^"]*)"/.exec(head)?.[1];
      const filename = /filename="([^"]*)"/.exec(head)?.[1];
      if (name !== undefined) parts.push({ name, ...(filename !== undefined ? { filename } : {}), bytes: chunk.subarray(split + 4) });
    }
    at = next;
  }
  return parts;
}

const DATE_DMY = /^(\d{2})\/(\d{2})\/(\d{4})$/;

function validDate(y: number, m: number, d: number): boolean {
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/** Starts the portal on a loopback port (both of its hosts answer there). */
export async function startPermitsPortal(options: { host?: string } = {}): Promise<PermitsPortal> {
  const sessions = new Map<string, Session>();
  const submitted: PermitSubmission[] = [];
  const receipts: { applicationNumber: string; inTab: boolean }[] = [];
  let extensions = 0;
  let counter = 0;
  let attack: PermitsAttack | undefined;
  /** The page with the attack's markup added, when the attack is on that page. */
  const attacked = (html: string, on: PermitsAttack['on']): string => {
    const markup = attack?.on === on ? attack.html(port) : '';
    return markup ? html.replace(on === 'finder' ? '</body>' : '</main>', (end) => `${markup}${end}`) : html;
  };
  let downUntil = 0;
  let pendingOutageMs = 0;
  const outageAnswers: string[] = [];
  const foreign: { host: string; method: string; path: string; body: string; at: string }[] = [];
  let port = 0;
  const permitsOrigin = () => `http://${PERMITS_HOST}:${port}`;

  const send = (res: ServerResponse, status: number, body: string, type = 'text/html; charset=utf-8'): void =>
    void res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-frame-options': 'SAMEORIGIN' }).end(body);
  const sendFrame = (res: ServerResponse, body: string): void =>
    void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': `frame-ancestors ${permitsOrigin()}` }).end(body);
  const redirect = (res: ServerResponse, to: string): void => void res.writeHead(303, { location: to }).end();

  const sessionOf = (req: IncomingMessage, res: ServerResponse): Session => {
    const id = /(?:^|;\s*)permit_sid=([a-f0-9]+)/.exec(req.headers.cookie ?? '')?.[1];
    const found = id ? sessions.get(id) : undefined;
    if (found) return found;
    const fresh = randomBytes(12).toString('hex');
    const session: Session = { app: blankApplication(), extended: false, filed: [] };
    sessions.set(fresh, session);
    res.setHeader('set-cookie', `permit_sid=${fresh}; Path=/; HttpOnly; SameSite=Lax`);
    return session;
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    const url = new URL(req.url ?? '/', 'http://x');
    const host = hostnameOf(req.headers.host);
    if (host === ADDRESSES_HOST) {
      if (url.pathname === '/finder') return sendFrame(res, attacked(finder(url.searchParams.get('landmark') ?? '', port, permitsOrigin()), 'finder'));
      return send(res, 404, 'not found', 'text/plain');
    }
    if (host !== PERMITS_HOST) {
      foreign.push({ host, method: req.method ?? 'GET', path: req.url ?? '/', body: body.subarray(0, 4096).toString('latin1'), at: new Date().toISOString() });
      return send(res, 421, 'not this portal', 'text/plain');
    }
    const pageRequest = (req.headers.accept ?? '').includes('text/html');
    if (pageRequest && pendingOutageMs > 0) {
      downUntil = Date.now() + pendingOutageMs;
      pendingOutageMs = 0;
    }
    if (pageRequest && Date.now() < downUntil) {
      outageAnswers.push(`${req.method ?? 'GET'} ${url.pathname}`);
      return send(res, 503, page('503 Service Unavailable', '<p>The service is temporarily unavailable. Try again later.</p>'));
    }
    const session = sessionOf(req, res);
    const app = session.app;
    const form = new URLSearchParams(req.headers['content-type']?.includes('urlencoded') ? body.toString('utf8') : '');
    const post = req.method === 'POST';
    switch (url.pathname) {
      case '/':
        return send(res, 200, home());
      case '/apply/applicant': {
        if (!post) return send(res, 200, attacked(applicant(app), 'applicant'));
        const errors: FieldErrors = {};
        app.applicant_name = (form.get('applicant_name') ?? '').trim();
        if (!app.applicant_name) errors['applicant_name'] = 'Enter the applicant name';
        const [d, m, y] = ['dob_day', 'dob_month', 'dob_year'].map((k) => (form.get(k) ?? '').trim());
        if (/^\d{1,2}$/.test(d!) && /^\d{1,2}$/.test(m!) && /^\d{4}$/.test(y!) && validDate(+y!, +m!, +d!)) app.date_of_birth = `${y}-${m!.padStart(2, '0')}-${d!.padStart(2, '0')}`;
        else errors['date_of_birth'] = 'Enter the date of birth as a day, month and year';
        const since = DATE_DMY.exec((form.get('trading_since') ?? '').trim());
        if (since && validDate(+since[3]!, +since[2]!, +since[1]!)) app.trading_since = `${since[3]}-${since[2]}-${since[1]}`;
        else errors['trading_since'] = 'Choose the date trading started from the calendar (DD/MM/YYYY)';
        app.mobile_number = (form.get('mobile_number') ?? '').trim();
        if (!/^[6-9]\d{9}$/.test(app.mobile_number)) errors['mobile_number'] = 'Enter a 10-digit mobile number without the country code';
        app.district = (form.get('district') ?? '').trim();
        if (!DISTRICTS.includes(app.district)) errors['district'] = 'Choose the district from the list';
        app.ward = (form.get('ward') ?? '').trim();
        if (!WARDS.includes(app.ward)) errors['ward'] = 'Choose a ward';
        if (Object.keys(errors).length) return send(res, 200, attacked(applicant(app, errors), 'applicant'));
        return redirect(res, '/apply/premises');
      }
      case '/apply/premises': {
        if (!post) return send(res, 200, premises(app, port));
        app.shop_address_line_1 = (form.get('shop_address_line_1') ?? '').trim();
        app.shop_pin_code = (form.get('shop_pin_code') ?? '').trim();
        app.nearest_landmark = (form.get('nearest_landmark') ?? '').trim();
        app.home_delivery = form.get('home_delivery') === 'yes';
        app.outdoor_seating = form.get('outdoor_seating') === 'yes';
        const errors: FieldErrors = {};
        if (!app.shop_address_line_1) errors['shop_address_line_1'] = 'Enter the shop address';
        if (!/^\d{6}$/.test(app.shop_pin_code)) errors['shop_pin_code'] = 'Enter a 6-digit PIN code';
        if (!app.nearest_landmark) errors['nearest_landmark'] = 'Enter the nearest landmark in the address finder';
        if (Object.keys(errors).length) return send(res, 200, premises(app, port, errors));
        return redirect(res, '/apply/documents');
      }
      case '/session/extend':
        if (post) {
          session.extended = true;
          extensions += 1;
        }
        return send(res, 204, '', 'text/plain');
      case '/apply/documents': {
        if (!post) return send(res, 200, documents(app, {}, !session.extended));
        if (!session.extended) return send(res, 200, page('Your session has expired', '<p>You did not continue your session. <a href="/apply/documents">Start this step again</a>.</p>'));
        const parts = multipart(body, req.headers['content-type'] ?? '');
        const errors: FieldErrors = {};
        for (const slot of DOCUMENT_SLOTS) {
          const part = parts.find((p) => p.name === slot.key && p.filename);
          if (part && part.bytes.length > 0) app.documents[slot.key] = { file: part.filename!, bytes: part.bytes.length, sha256: createHash('sha256').update(part.bytes).digest('hex') };
          else if (slot.required && !app.documents[slot.key]) errors[slot.key] = `Attach the ${slot.label.toLowerCase()}`;
        }
        app.declaration = parts.some((p) => p.name === 'declaration' && p.bytes.toString() === 'yes');
        if (!app.declaration) errors['declaration'] = `Confirm: ${DECLARATION}`;
        if (Object.keys(errors).length) return send(res, 200, documents(app, errors, false));
        return redirect(res, '/apply/review');
      }
      case '/apply/review':
        return send(res, 200, review(app));
      case '/apply/submit': {
        if (!post) return redirect(res, '/apply/review');
        counter += 1;
        const applicationNumber = `PRM-2026-${String(100000 + counter).slice(-6)}`;
        submitted.push({ applicationNumber, application: structuredClone(app) });
        session.filed.push(applicationNumber);
        return send(res, 200, confirmation(applicationNumber));
      }
      case '/my-applications':
        return send(res, 200, page('My applications', session.filed.length ? `<ul>${session.filed.map((n) => `<li>${n}</li>`).join('')}</ul>` : '<p>No applications yet.</p>'));
      default: {
        const number = /^\/receipt\/(PRM-\d{4}-\d{6})$/.exec(url.pathname)?.[1];
        const found = number ? submitted.find((s) => s.applicationNumber === number) : undefined;
        if (found) {
          receipts.push({ applicationNumber: found.applicationNumber, inTab: (req.headers.accept ?? '').includes('text/html') });
          return send(res, 200, receipt(found.applicationNumber, found.application));
        }
        return send(res, 404, page('Page not found', '<p>There is no such page.</p>'));
      }
    }
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= 20 * 1024 * 1024) chunks.push(c);
    });
    req.on('end', () => {
      try {
        handle(req, res, Buffer.concat(chunks));
      } catch (err) {
        send(res, 500, `portal error: ${String(err)}`, 'text/plain');
      }
    });
  });
  const listenHost = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, listenHost, resolve));
  port = (server.address() as { port: number }).port;
  return {
    port,
    origin: permitsOrigin(),
    addressesOrigin: `http://${ADDRESSES_HOST}:${port}`,
    hostResolverRules: `MAP ${PERMITS_HOST} ${listenHost}, MAP ${ADDRESSES_HOST} ${listenHost}`,
    submissions: () => submitted.map((s) => structuredClone(s)),
    extensions: () => extensions,
    receiptsOpened: () => receipts.map((r) => ({ ...r })),
    outage: (ms) => {
      pendingOutageMs = ms;
      // 0 ends an outage now (a fault suite's injected wait), as well as arming none.
      if (ms === 0) downUntil = 0;
    },
    outageAnswers: () => [...outageAnswers],
    attack: (id) => {
      attack = id === null ? undefined : findPermitsAttack(id);
      if (id !== null && !attack) throw new Error(`No permits attack "${id}"`);
    },
    foreignRequests: () => foreign.map((r) => ({ ...r })),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
