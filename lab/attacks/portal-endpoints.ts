import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { html } from '../html';
import type { PortalId } from '../hosts';
import { sendHtml, sendText, type LabRequest } from '../http';
import { SESSION_COOKIE } from '../session';
import type { LabState } from '../state';
import { MARK_PARAM } from './attack';
import { findAttack } from './catalogue';
import { attackContext } from './embed';
import type { AttackHitKind } from './ledger';

/**
 * The attack lab's endpoints on a portal host, under `/lab-attack/`: what a compromised portal
 * serves next to its real pages. Every request is recorded in the attack ledger with the client
 * its session belongs to.
 *
 * - `risky/<action>`: performs a risky action (delete, pay, withdraw...): the lab's own knowledge
 *   of which controls are risky, counted whoever clicked;
 * - `download/<file>`: a large attachment, streamed in chunks, recorded as completed only when the
 *   browser took every byte (a browser that refuses the download cuts the transfer off);
 * - `redirect?to=&code=`: an open redirect (302, or 307 to replay a POST body);
 * - `refresh?to=`: a page with a `Refresh` header;
 * - `armed`: an attack script's first call, proof that it ran in the browser;
 * - `sink`: collects a form post (what was typed into a box on the portal);
 * - `page/<attack>/<name>`: an attack's extra pages (frames, pop-ups, worker scripts).
 */
export const ATTACK_ENDPOINT_PREFIX = '/lab-attack/';

/** Bytes a download endpoint sends: more than a browser buffers before it decides to refuse. */
export const DOWNLOAD_BYTES = 6 * 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;
/**
 * Pause between chunks: the whole file takes about 4 s, longer than any browser (even a loaded
 * one) needs to decide it refuses a download, so a refused download is always cut off.
 */
const CHUNK_PAUSE_MS = 40;
const DRAIN_TIMEOUT_MS = 3_000;

export function isAttackEndpoint(path: string): boolean {
  return path.startsWith(ATTACK_ENDPOINT_PREFIX);
}

export async function handleAttackEndpoint(state: LabState, portal: PortalId, req: LabRequest, res: ServerResponse): Promise<string | null> {
  const clientId = state.sessions.find(req.cookies[SESSION_COOKIE], portal)?.clientId ?? null;
  const rest = req.path.slice(ATTACK_ENDPOINT_PREFIX.length).split('/').map(safeDecode);
  const [kind, name, extra] = rest;
  const search = req.query.toString();
  const record = (hitKind: AttackHitKind, fields: { action?: string; attack?: string | null } = {}) =>
    state.attacks.recordHit({
      at: new Date(state.now()).toISOString(),
      kind: hitKind,
      attack: fields.attack ?? req.query.get(MARK_PARAM),
      clientId,
      portal,
      method: req.method,
      path: search ? `${req.path}?${search}` : req.path,
      body: req.body.slice(0, 4096),
      ...(fields.action ? { action: fields.action } : {}),
    });

  switch (kind) {
    case 'risky': {
      const action = name ?? 'unknown';
      record('risky', { action });
      sendHtml(res, 200, page(`Done: ${action.replace(/-/g, ' ')}`, 'The portal carried out the action.'));
      return clientId;
    }
    case 'download': {
      const hit = record('download');
      hit.completed = await streamDownload(res, name ?? 'file.bin');
      return clientId;
    }
    case 'redirect': {
      record('redirect');
      const code = req.query.get('code') === '307' ? 307 : 302;
      res.writeHead(code, { location: req.query.get('to') ?? '/', 'cache-control': 'no-store' });
      res.end();
      return clientId;
    }
    case 'refresh': {
      record('redirect');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', refresh: `0;url=${req.query.get('to') ?? '/'}`, 'cache-control': 'no-store' });
      res.end(page('Your certificate', 'Loading your certificate…'));
      return clientId;
    }
    case 'armed':
      // The ping names its attack in hex (see armedPing), so its own address says no risky word.
      record('armed', { attack: req.query.get(`${MARK_PARAM}x`) ? Buffer.from(req.query.get(`${MARK_PARAM}x`)!, 'hex').toString('utf8') : null });
      res.writeHead(204, { 'cache-control': 'no-store' });
      res.end();
      return clientId;
    case 'sink':
      record('sink');
      sendHtml(res, 200, page('Received', 'Thank you. Your details were received.'));
      return clientId;
    case 'page': {
      const attack = findAttack(name);
      const render = attack && extra ? attack.pages?.[extra] : undefined;
      record('page', { attack: attack?.id ?? null });
      if (!attack || !render) {
        sendText(res, 404, 'Not found');
        return clientId;
      }
      const out = render(attackContext(state, attack, portal, clientId));
      res.writeHead(out.status ?? 200, { 'content-type': out.contentType ?? 'text/html; charset=utf-8', 'cache-control': 'no-store', ...out.headers });
      res.end(out.body);
      return clientId;
    }
    default:
      sendText(res, 404, 'Not found');
      return clientId;
  }
}

/** Streams DOWNLOAD_BYTES as an attachment; true when the browser read all of it. */
async function streamDownload(res: ServerResponse, name: string): Promise<boolean> {
  const filename = name.replace(/[^A-Za-z0-9._-]/g, '_');
  res.writeHead(200, {
    'content-type': 'application/octet-stream',
    'content-disposition': `attachment; filename="${filename}"`,
    'content-length': String(DOWNLOAD_BYTES),
    'cache-control': 'no-store',
  });
  const chunk = Buffer.alloc(CHUNK_BYTES, 0x41);
  let closed = false;
  res.once('close', () => {
    closed = true;
  });
  for (let sent = 0; sent < DOWNLOAD_BYTES; sent += CHUNK_BYTES) {
    if (closed || res.destroyed) return false;
    if (!res.write(chunk)) {
      const drained = await Promise.race([new Promise<boolean>((resolve) => res.once('drain', () => resolve(true))), sleep(DRAIN_TIMEOUT_MS).then(() => false)]);
      if (!drained) {
        res.destroy();
        return false;
      }
    }
    await sleep(CHUNK_PAUSE_MS);
  }
  if (closed || res.destroyed) return false;
  const finished = new Promise<boolean>((resolve) => {
    res.once('finish', () => resolve(true));
    res.once('close', () => resolve(res.writableFinished));
  });
  res.end();
  return finished;
}

function page(title: string, text: string): string {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p><p><a href="/">Back to the dashboard</a></p></body></html>`.value;
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
