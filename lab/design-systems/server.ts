import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { extname, join, sep } from 'node:path';
import { hostnameOf } from '../hosts';
import { multipart } from '../permits/server';
import { ADDRESS_BOOK, COUNTRIES, DS_HOSTS, DS_PORTALS, STATES, type DsPortal, type DsSubmission } from './data';
import { govukDone, govukForm, govukHome, govukReview, mojForm, mojHome, mojReview, SERVICES, uswdsDone, uswdsForm, uswdsHome, uswdsReview, type Errors } from './pages';

/** A running design-system family: its three portals as three hosts of one loopback port, and what each received. */
export interface DesignSystemsLab {
  readonly port: number;
  origin(portal: DsPortal): string;
  /** Chromium's `--host-resolver-rules` value that sends the family's names to it. */
  readonly hostResolverRules: string;
  submissions(): DsSubmission[];
  stop(): Promise<void>;
}

const ROOT = join(__dirname, '..', '..', 'node_modules');
/** The packages' own files, served as they ship. */
const ASSETS: Record<string, string> = {
  uswds: join(ROOT, '@uswds', 'uswds', 'dist'),
  govuk: join(ROOT, 'govuk-frontend', 'dist', 'govuk'),
  moj: join(ROOT, '@ministryofjustice', 'frontend', 'moj'),
  autocomplete: join(ROOT, 'accessible-autocomplete', 'dist'),
};
const TYPES: Record<string, string> = {
  '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png',
  '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf', '.map': 'application/json', '.json': 'application/json',
};

/** A package file under /assets/<package>/..., or null when the path leaves its package. */
function assetFile(path: string): { bytes: Buffer; type: string } | null {
  const m = /^\/assets\/([a-z]+)\/(.+)$/.exec(path);
  const base = m ? ASSETS[m[1]!] : undefined;
  if (!m || !base) return null;
  try {
    const root = realpathSync(base);
    const file = realpathSync(join(root, decodeURIComponent(m[2]!)));
    if (!file.startsWith(root + sep)) return null;
    return { bytes: readFileSync(file), type: TYPES[extname(file)] ?? 'application/octet-stream' };
  } catch {
    return null;
  }
}

const DATE_MDY = /^(\d{2})\/(\d{2})\/(\d{4})$/;
const DATE_DMY = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;

function validDate(y: number, m: number, d: number): boolean {
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

function postcodeKey(text: string): string {
  const compact = text.toUpperCase().replace(/\s+/g, '');
  return compact.length > 3 ? `${compact.slice(0, -3)} ${compact.slice(-3)}` : compact;
}

interface Session {
  values: Record<string, string>;
  files: DsSubmission['files'];
}

/** Starts the family on a loopback port. */
export async function startDesignSystemsLab(options: { host?: string } = {}): Promise<DesignSystemsLab> {
  const sessions = new Map<string, Session>();
  const submitted: DsSubmission[] = [];
  let counter = 0;

  const send = (res: ServerResponse, status: number, body: string | Buffer, type = 'text/html; charset=utf-8'): void =>
    void res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
  const redirect = (res: ServerResponse, to: string): void => void res.writeHead(303, { location: to }).end();

  const sessionOf = (portal: DsPortal, req: IncomingMessage, res: ServerResponse): Session => {
    const id = /(?:^|;\s*)ds_sid=([a-f0-9]+)/.exec(req.headers.cookie ?? '')?.[1];
    const found = id ? sessions.get(`${portal}:${id}`) : undefined;
    if (found) return found;
    const fresh = randomBytes(12).toString('hex');
    const session: Session = { values: {}, files: {} };
    sessions.set(`${portal}:${fresh}`, session);
    res.setHeader('set-cookie', `ds_sid=${fresh}; Path=/; HttpOnly; SameSite=Lax`);
    return session;
  };

  const record = (portal: DsPortal, session: Session, prefix: string): string => {
    counter += 1;
    const applicationNumber = `${prefix}-${String(100000 + counter).slice(-6)}`;
    submitted.push({ portal, applicationNumber, fields: { ...session.values }, files: { ...session.files } });
    session.values = {};
    session.files = {};
    return applicationNumber;
  };

  const uswds = (req: IncomingMessage, res: ServerResponse, path: string, body: Buffer, session: Session): void => {
    const post = req.method === 'POST';
    if (path === '/') return send(res, 200, uswdsHome());
    if (path === '/apply' && !post) return send(res, 200, uswdsForm(session.values));
    if (path === '/apply') {
      const parts = multipart(body, req.headers['content-type'] ?? '');
      const text = (name: string) => parts.find((p) => p.name === name && p.filename === undefined)?.bytes.toString('utf8').trim() ?? '';
      const values: Record<string, string> = {};
      for (const name of ['full_name', 'date_of_birth', 'state', 'phone', 'contact_method', 'declaration']) values[name] = text(name);
      session.values = values;
      const upload = parts.find((p) => p.name === 'proof_of_identity' && p.filename);
      if (upload && upload.bytes.length > 0) session.files['proof_of_identity'] = { file: upload.filename!, bytes: upload.bytes.length, sha256: createHash('sha256').update(upload.bytes).digest('hex') };
      const errors: Errors = {};
      if (!values['full_name']) errors['full_name'] = 'Enter your full name';
      const dob = DATE_MDY.exec(values['date_of_birth']!);
      if (!dob || !validDate(+dob[3]!, +dob[1]!, +dob[2]!)) errors['date_of_birth'] = 'Enter your date of birth as mm/dd/yyyy';
      if (!STATES[values['state']!]) errors['state'] = 'Select your state';
      if (!/^\d{3}-\d{3}-\d{4}$/.test(values['phone']!)) errors['phone'] = 'Enter a 10-digit phone number, like 555-123-4567';
      if (!session.files['proof_of_identity']) errors['proof_of_identity'] = 'Attach a proof of identity';
      if (!['email', 'phone', 'mail'].includes(values['contact_method']!)) errors['contact_method'] = 'Choose how we should contact you';
      if (values['declaration'] !== 'yes') errors['declaration'] = 'Certify that the information is true';
      if (Object.keys(errors).length) return send(res, 200, uswdsForm(values, errors));
      return redirect(res, '/review');
    }
    if (path === '/review') return send(res, 200, uswdsReview(session.values, session.files['proof_of_identity']?.file ?? ''));
    if (path === '/submit' && post) {
      if (!session.values['full_name']) return redirect(res, '/apply');
      return send(res, 200, uswdsDone(record('uswds', session, 'USA')));
    }
    return send(res, 404, uswdsHome());
  };

  const govuk = (req: IncomingMessage, res: ServerResponse, path: string, form: URLSearchParams, session: Session): void => {
    const post = req.method === 'POST';
    const found = () => ADDRESS_BOOK[postcodeKey(session.values['postcode'] ?? '')];
    if (path === '/') return send(res, 200, govukHome());
    if (path === '/apply' && !post) return send(res, 200, govukForm(session.values, {}, session.values['postcode'] ? found() : undefined));
    if (path === '/apply') {
      const values: Record<string, string> = {};
      for (const name of ['full_name', 'nationality', 'contact', 'email', 'phone', 'postcode', 'address']) values[name] = (form.get(name) ?? '').trim();
      if (values['contact'] !== 'email') values['email'] = '';
      if (values['contact'] !== 'phone') values['phone'] = '';
      session.values = values;
      const errors: Errors = {};
      const addresses = found();
      if (form.get('action') === 'find') {
        if (!addresses) errors['postcode'] = 'Enter a real postcode';
        return send(res, 200, govukForm(values, errors, addresses));
      }
      if (!values['full_name']) errors['full_name'] = 'Enter your full name';
      if (!COUNTRIES.includes(values['nationality']!)) errors['nationality'] = 'Select your nationality from the list';
      if (values['contact'] === 'email' && !/^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i.test(values['email']!)) errors['email'] = 'Enter an email address in the correct format, like name@example.com';
      else if (values['contact'] === 'phone' && !/^(\+44\s?7\d{3}|07\d{3})\s?\d{3}\s?\d{3}$/.test(values['phone']!)) errors['phone'] = 'Enter a UK mobile number, like 07700 900 982';
      else if (!['email', 'phone'].includes(values['contact']!)) errors['contact'] = 'Select how we should contact you';
      if (!addresses) errors['postcode'] = 'Enter a real postcode';
      else if (!addresses.some((lines) => lines.join(', ') === values['address'])) errors['address'] = 'Select your address';
      if (Object.keys(errors).length) return send(res, 200, govukForm(values, errors, addresses));
      return redirect(res, '/check');
    }
    if (path === '/check') return send(res, 200, govukReview(session.values));
    if (path === '/send' && post) {
      if (!session.values['full_name']) return redirect(res, '/apply');
      return send(res, 200, govukDone(SERVICES.govuk, record('govuk', session, 'GOV')));
    }
    return send(res, 404, govukHome());
  };

  const moj = (req: IncomingMessage, res: ServerResponse, path: string, form: URLSearchParams, session: Session): void => {
    const post = req.method === 'POST';
    if (path === '/') return send(res, 200, mojHome());
    if (path === '/claim' && !post) return send(res, 200, mojForm(session.values));
    if (path === '/claim') {
      const values: Record<string, string> = {};
      for (const [name, value] of form) if (name === 'case_reference' || name === 'claim_date' || /^people\[\d+\]\[(full_name|role)\]$/.test(name)) values[name] = value.trim();
      session.values = values;
      const errors: Errors = {};
      if (!/^[A-Z]{2}\d{6}$/.test(values['case_reference'] ?? '')) errors['case_reference'] = 'Enter the case reference, 2 letters then 6 digits';
      const d = DATE_DMY.exec(values['claim_date'] ?? '');
      if (!d || !validDate(+d[3]!, +d[2]!, +d[1]!)) errors['claim_date'] = 'Enter the date of the incident as day/month/year, for example 17/5/2024';
      for (const [name, value] of Object.entries(values)) if (name.startsWith('people[') && !value) errors[name.replace(/\W+/g, '-')] = 'Enter every person’s name and role';
      if (Object.keys(errors).length) return send(res, 200, mojForm(values, errors));
      return redirect(res, '/check');
    }
    if (path === '/check') {
      const people: { full_name: string; role: string }[] = [];
      for (let i = 0; session.values[`people[${i}][full_name]`] !== undefined; i++) people.push({ full_name: session.values[`people[${i}][full_name]`]!, role: session.values[`people[${i}][role]`] ?? '' });
      return send(res, 200, mojReview(session.values, people));
    }
    if (path === '/send' && post) {
      if (!session.values['case_reference']) return redirect(res, '/claim');
      return send(res, 200, govukDone(SERVICES.moj, record('moj', session, 'MOJ')));
    }
    return send(res, 404, mojHome());
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    const url = new URL(req.url ?? '/', 'http://x');
    const host = hostnameOf(req.headers.host);
    const portal = DS_PORTALS.find((p) => DS_HOSTS[p] === host);
    if (!portal) return send(res, 421, 'not this lab', 'text/plain');
    if (url.pathname.startsWith('/assets/')) {
      const asset = assetFile(url.pathname);
      return asset ? void res.writeHead(200, { 'content-type': asset.type, 'cache-control': 'max-age=3600' }).end(asset.bytes) : send(res, 404, 'no such asset', 'text/plain');
    }
    if (url.pathname === '/favicon.ico') return send(res, 404, '', 'text/plain');
    const session = sessionOf(portal, req, res);
    const form = new URLSearchParams(req.headers['content-type']?.includes('urlencoded') ? body.toString('utf8') : '');
    if (portal === 'uswds') return uswds(req, res, url.pathname, body, session);
    if (portal === 'govuk') return govuk(req, res, url.pathname, form, session);
    return moj(req, res, url.pathname, form, session);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        handle(req, res, Buffer.concat(chunks));
      } catch (err) {
        send(res, 500, `lab error: ${String(err)}`, 'text/plain');
      }
    });
  });
  const listenHost = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, listenHost, resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    origin: (portal) => `http://${DS_HOSTS[portal]}:${port}`,
    hostResolverRules: DS_PORTALS.map((p) => `MAP ${DS_HOSTS[p]} ${listenHost}`).join(', '),
    submissions: () => submitted.map((s) => structuredClone(s)),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
