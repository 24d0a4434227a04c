import type { ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { isPortalId } from './hosts';
import { sendJson, sendText, type LabRequest } from './http';
import type { Lab } from './lab';
import { LabVariant } from './variants';

/**
 * The lab's control API on `lab.portal.example` (and 127.0.0.1), for out-of-process tests and
 * the CLI. Every call needs the `X-Lab-Token` header: a browser under test (or an attack page in
 * it) cannot send that header, so it can neither read codes nor reconfigure the lab.
 */

export const CONTROL_TOKEN_HEADER = 'x-lab-token';

function tokenMatches(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

const ClientId = z.string().regex(/^[A-Za-z0-9._-]{1,80}$/);

export function handleControl(lab: Lab, req: LabRequest, res: ServerResponse): void {
  if (req.path === '/' && req.method === 'GET') {
    return sendText(res, 200, 'Portal lab control API. Send X-Lab-Token with every /api call.\n');
  }
  if (!tokenMatches(req.headers[CONTROL_TOKEN_HEADER], lab.controlToken)) {
    return sendJson(res, 401, { error: 'The X-Lab-Token header is missing or wrong.' });
  }
  const parts = req.path.split('/').filter(Boolean).map(decodeURIComponent);
  const [api, resource, id, verb] = parts;
  if (api !== 'api') return sendJson(res, 404, { error: `No such endpoint: ${req.path}` });
  const clientId = id === undefined ? null : ClientId.safeParse(id).success ? id : undefined;
  if (clientId === undefined) return sendJson(res, 400, { error: `"${id}" is not a client id.` });
  const route = `${req.method} ${resource ?? ''}${clientId ? '/:clientId' : ''}${verb ? `/${verb}` : ''}`;
  switch (route) {
    case 'GET submissions': {
      const portal = req.query.get('portal');
      if (portal !== null && !isPortalId(portal)) return sendJson(res, 400, { error: `Unknown portal "${portal}".` });
      return sendJson(res, 200, lab.submissions({ ...(portal ? { portal } : {}), ...optional('clientId', req.query.get('clientId')), ...optional('task', req.query.get('task')) }));
    }
    case 'GET applications/:clientId':
      return sendJson(res, 200, lab.applications(clientId!));
    case 'GET otp/:clientId':
      return sendJson(res, 200, { clientId, code: lab.latestOtp(clientId!) });
    case 'GET resets/:clientId':
      return sendJson(res, 200, { clientId, resets: lab.resets(clientId!) });
    case 'GET variant/:clientId':
      return sendJson(res, 200, lab.variant(clientId!));
    case 'GET attacker-requests':
      return sendJson(res, 200, lab.attackerRequests());
    case 'GET requests':
      return sendJson(res, 200, lab.requestLog());
    case 'POST configure/:clientId':
      return configure(lab, clientId!, req, res);
    case 'POST expire/:clientId':
      lab.expireSession(clientId!);
      return sendJson(res, 200, { ok: true });
    case 'POST captcha/:clientId/solve':
      lab.solveCaptcha(clientId!);
      return sendJson(res, 200, { ok: true });
    case 'POST reset':
      lab.reset();
      return sendJson(res, 200, { ok: true });
    default:
      return sendJson(res, 404, { error: `No such endpoint: ${req.method} ${req.path}` });
  }
}

function optional(key: string, value: string | null): Record<string, string> {
  return value ? { [key]: value } : {};
}

function configure(lab: Lab, clientId: string, req: LabRequest, res: ServerResponse): void {
  let body: unknown;
  try {
    body = req.body.trim() ? JSON.parse(req.body) : {};
  } catch {
    return sendJson(res, 400, { error: 'The body is not JSON.' });
  }
  const parsed = LabVariant.safeParse(body);
  if (!parsed.success) return sendJson(res, 400, { error: 'Not a lab variant.', issues: parsed.error.issues });
  sendJson(res, 200, lab.configure(clientId, parsed.data));
}
