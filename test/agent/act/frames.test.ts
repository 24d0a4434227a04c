import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeAction } from '../../../src/agent/act/executor';
import { launchChromium } from '../../../src/agent/browser/chromium';
import { loadCaseFile } from '../../../src/agent/case/case-files';
import { installWatchdogs, openGuardedContext, type GuardEvent } from '../../../src/agent/guard/browser';
import { checkAction, resolveDocument, resolveValue } from '../../../src/agent/guard/guard';
import type { GuardContext } from '../../../src/agent/guard/guard-context';
import { PageObserver, type LivePageRead } from '../../../src/agent/observe/observer';
import type { Action } from '../../../src/shared/action';
import type { CaseFile } from '../../../src/shared/case-file';
import { PortalProfile } from '../../../src/shared/portal-profile';
import { serveOnLoopback, type LoopbackSite } from '../../support/loopback-site';

/**
 * Frames in a run's guarded context, in real Chromium: a frame of the portal's second allowed host
 * (an address finder, a document service) is observed, and code types a case value into it and
 * attaches a case document to its file input, each read back; a frame of a host off the list never
 * loads (the network lock refuses its page, that host receives nothing) and none of its controls
 * reach the observation, so nothing can be typed or uploaded there.
 */

const root = realpathSync(mkdtempSync(join(tmpdir(), 'pd-frames-')));
mkdirSync(join(root, 'asha'));
const PAN = Buffer.from('%PDF-1.4\n% PAN of Asha Stores\n%%EOF\n');
writeFileSync(join(root, 'asha', 'pan.pdf'), PAN);
writeFileSync(
  join(root, 'case.json'),
  JSON.stringify({ caseId: 'frames-1', clientId: 'asha', portal: 'docs', task: 'licence', fields: { nearest_landmark: 'Opposite the post office' }, documents: { id_proof: 'asha/pan.pdf' } }),
);

let site: LoopbackSite;
let port = 0;
let browser: Browser;
const hits: { host: string; path: string }[] = [];

const MAIN = (p: number) => `<!doctype html><title>Premises</title><h1>About the premises</h1>
<iframe title="Address finder" src="http://finder.test:${p}/finder" width="500" height="160"></iframe>
<iframe title="Partner offer" src="http://other.test:${p}/offer" width="500" height="160"></iframe>`;
const FINDER = `<!doctype html><label for="lm">Nearest landmark</label><input id="lm">
<label for="doc">Identity proof for the finder</label><input id="doc" type="file">`;
const OFFER = `<!doctype html><label for="m">Mobile number</label><input id="m"><label for="u">Upload your PAN here</label><input id="u" type="file">`;

beforeAll(async () => {
  site = await serveOnLoopback((req, res) => {
    req.resume();
    const host = (req.headers.host ?? '').split(':')[0]!;
    hits.push({ host, path: req.url ?? '/' });
    const body = host === 'finder.test' ? FINDER : host === 'other.test' ? OFFER : MAIN(port);
    res.writeHead(200, { 'content-type': 'text/html' }).end(body);
  });
  port = site.port;
  browser = await launchChromium({ hostResolverRules: 'MAP * 127.0.0.1' });
});
afterAll(async () => {
  await browser?.close();
  await site.close();
});

function profile(): PortalProfile {
  return PortalProfile.parse({
    id: 'docs',
    name: 'Documents portal',
    startUrl: `http://a.test:${port}/`,
    allowedHosts: [`a.test:${port}`, `finder.test:${port}`],
    allowHttp: true,
    confirmation: { applicationNumberPattern: 'DOC-\\d{4}', pageContains: 'received' },
  });
}

describe('frames in the guarded context', () => {
  it('types and attaches in a frame of the second allowed host, read back; a frame of another host never loads and offers nothing', async () => {
    const events: GuardEvent[] = [];
    const context: BrowserContext = await openGuardedContext(browser, profile());
    try {
      const watchdogs = await installWatchdogs(context, profile(), (e) => events.push(e));
      const page: Page = await watchdogs.openPage();
      await page.goto(`http://a.test:${port}/premises`);
      await page.frameLocator('iframe[title="Address finder"]').locator('#lm').waitFor();
      await expect.poll(() => events.some((e) => e.type === 'navigation_blocked' && e.url?.includes('other.test') === true), { timeout: 20_000 }).toBe(true);
      const observer = new PageObserver();
      const read: LivePageRead = await observer.read(page);
      const caseFile: CaseFile = loadCaseFile(join(root, 'case.json'));
      const ctx: GuardContext = { profile: profile(), caseFile, clerkValues: {}, observation: read.observation, control: (ref) => read.control(ref) };
      const control = (name: string) => read.observation.controls.find((c) => c.name === name);

      // The second allowed host's frame: its controls are observed with their frame's address.
      expect(control('Nearest landmark')?.frameUrl).toBe(`http://finder.test:${port}/finder`);
      const fill: Action = { type: 'fill', ref: control('Nearest landmark')!.ref, field: 'nearest_landmark' };
      const fillVerdict = checkAction(fill, ctx);
      expect(fillVerdict).toMatchObject({ verdict: 'allow', provenance: { source: 'case', field: 'nearest_landmark' } });
      expect((await executeAction(page, read, fill, resolveValue(fill as Extract<Action, { type: 'fill' }>, ctx))).status).toBe('done');
      expect(await page.frameLocator('iframe[title="Address finder"]').locator('#lm').inputValue()).toBe('Opposite the post office');

      const upload: Action = { type: 'upload', ref: control('Identity proof for the finder')!.ref, document: 'id_proof' };
      const uploadVerdict = checkAction(upload, ctx);
      expect(uploadVerdict).toMatchObject({ verdict: 'allow', rule: 'upload', provenance: { document: { file: 'pan.pdf', sha256: createHash('sha256').update(PAN).digest('hex') } } });
      const attached = await executeAction(page, read, upload, resolveDocument(upload as Extract<Action, { type: 'upload' }>, ctx, uploadVerdict));
      expect(attached.status, attached.message).toBe('done');
      expect(await page.frameLocator('iframe[title="Address finder"]').locator('#doc').evaluate((el) => (el as HTMLInputElement).files?.[0]?.name)).toBe('pan.pdf');

      // The other host's frame: refused before it loaded; nothing of it in the observation; that host heard nothing.
      expect(read.observation.controls.filter((c) => (c.frameUrl ?? '').includes('other.test') || c.name === 'Upload your PAN here' || c.name === 'Mobile number')).toEqual([]);
      expect(hits.filter((h) => h.host === 'other.test')).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
});
