import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeAction } from '../../../src/agent/act/executor';
import { loadCaseFile } from '../../../src/agent/case/case-files';
import { MAX_DOCUMENT_BYTES } from '../../../src/agent/case/documents';
import { checkAction, resolveDocument } from '../../../src/agent/guard/guard';
import type { GuardContext } from '../../../src/agent/guard/guard-context';
import { PageObserver, type LivePageRead } from '../../../src/agent/observe/observer';
import type { Action } from '../../../src/shared/action';
import type { CaseFile } from '../../../src/shared/case-file';
import { PortalProfile } from '../../../src/shared/portal-profile';
import { useFixtureBrowser } from '../observe/fixture-pages';
import { serveOnLoopback, type LoopbackSite } from '../../support/loopback-site';

/**
 * Uploads of case documents, in real Chromium against a portal page served here that receives the
 * multipart form and keeps what arrived: the guard allows only a listed document inside the case
 * folder, into a file input of the portal's own host; the executor attaches exactly the bytes the
 * guard hashed, and the portal receives them.
 */

const root = realpathSync(mkdtempSync(join(tmpdir(), 'pd-upload-')));
const caseDir = join(root, 'cases');
const outside = join(root, 'elsewhere');
mkdirSync(join(caseDir, 'anand'), { recursive: true });
mkdirSync(outside);
const PAN = Buffer.from('%PDF-1.4\n% PAN card of Anand Bakery\n%%EOF\n');
writeFileSync(join(caseDir, 'anand', 'pan.pdf'), PAN);
writeFileSync(join(caseDir, 'anand', 'photo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]));
writeFileSync(join(caseDir, 'anand', 'notes.txt'), 'not a document');
writeFileSync(join(caseDir, 'anand', 'huge.pdf'), Buffer.alloc(MAX_DOCUMENT_BYTES + 1, 0x25));
writeFileSync(join(caseDir, 'anand', 'empty.pdf'), '');
writeFileSync(join(outside, 'secret.pdf'), '%PDF secret of another client');
symlinkSync(join(outside, 'secret.pdf'), join(caseDir, 'anand', 'linked.pdf'));
symlinkSync(outside, join(caseDir, 'anand', 'other-folder'));

const caseJson = {
  caseId: 'upload-1',
  clientId: 'anand-bakery',
  portal: 'docs',
  task: 'licence',
  fields: { business_name: 'Anand Bakery' },
  documents: {
    id_proof: 'anand/pan.pdf',
    photo: 'anand/photo.png',
    notes: 'anand/notes.txt',
    huge: 'anand/huge.pdf',
    empty: 'anand/empty.pdf',
    linked: 'anand/linked.pdf',
    via_folder: 'anand/other-folder/secret.pdf',
  },
};
writeFileSync(join(caseDir, 'case.json'), JSON.stringify(caseJson));

/** What the portal received: the files of each posted form. */
const received: { name: string; file: string; sha256: string }[] = [];
let site: LoopbackSite;
let port = 0;
const browser = useFixtureBrowser();
const observer = new PageObserver();

const PAGE = (port: number) => `<!doctype html><title>Documents</title><h1>Attach your documents</h1>
<form method="post" action="/receive" enctype="multipart/form-data">
  <label for="id">Identity proof (PDF)</label><input id="id" name="id_proof" type="file" accept=".pdf">
  <label for="bn">Business name</label><input id="bn" name="business_name">
  <button type="submit">Send documents</button>
</form>
<iframe title="Other site" src="http://b.test:${port}/frame" width="400" height="120"></iframe>`;
const FRAME = `<!doctype html><form><label for="f">Upload here</label><input id="f" type="file"></form>`;

/** The file parts of a multipart body, each with its bytes' sha256. */
function fileParts(body: Buffer, type: string): { name: string; file: string; sha256: string }[] {
  const boundary = /boundary=(.+)$/.exec(type)?.[1];
  if (!boundary) return [];
  const out: { name: string; file: string; sha256: string }[] = [];
  const text = body.toString('latin1');
  for (const part of text.split(`--${boundary}`)) {
    const head = /name="([^"]*)"; filename="([^"]*)"/.exec(part);
    if (!head) continue;
    const start = part.indexOf('\r\n\r\n') + 4;
    const bytes = Buffer.from(part.slice(start, part.length - 2), 'latin1');
    out.push({ name: head[1]!, file: head[2]!, sha256: createHash('sha256').update(bytes).digest('hex') });
  }
  return out;
}

beforeAll(async () => {
  site = await serveOnLoopback((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.method === 'POST' && url.pathname === '/receive') {
        received.push(...fileParts(Buffer.concat(chunks), req.headers['content-type'] ?? ''));
        res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Received</title><h1>Documents received</h1>');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end(url.pathname === '/frame' ? FRAME : PAGE(port));
    });
  });
  port = site.port;
});
afterAll(() => site.close());

function profile(): PortalProfile {
  return PortalProfile.parse({
    id: 'docs',
    name: 'Documents portal',
    startUrl: `http://a.test:${port}/`,
    allowedHosts: [`a.test:${port}`],
    allowHttp: true,
    confirmation: { applicationNumberPattern: 'DOC-\\d{4}', pageContains: 'received' },
  });
}

async function open(): Promise<{ page: Page; read: LivePageRead }> {
  const page = await browser.page();
  await page.goto(`http://a.test:${port}/apply`);
  await page.frameLocator('iframe').locator('#f').waitFor();
  return { page, read: await observer.read(page) };
}

function context(read: LivePageRead, caseFile: CaseFile): GuardContext {
  return { profile: profile(), caseFile, clerkValues: {}, observation: read.observation, control: (ref) => read.control(ref) };
}

function ref(read: LivePageRead, name: string, inFrame = false): string {
  const found = read.observation.controls.find((c) => c.name === name && !!c.frameUrl === inFrame);
  if (!found) throw new Error(`no control "${name}" in ${JSON.stringify(read.observation.controls.map((c) => c.label))}`);
  return found.ref;
}

describe('upload: a case document, checked by the guard, attached by the executor', () => {
  it('attaches the listed document; the step records its name and sha256, and the portal receives those bytes', async () => {
    const caseFile = loadCaseFile(join(caseDir, 'case.json'));
    expect(caseFile.folder).toBe(caseDir);
    const { page, read } = await open();
    const upload: Action = { type: 'upload', ref: ref(read, 'Identity proof (PDF)'), document: 'id_proof' };
    const ctx = context(read, caseFile);
    const verdict = checkAction(upload, ctx);
    const sha = createHash('sha256').update(PAN).digest('hex');
    expect(verdict).toMatchObject({ verdict: 'allow', rule: 'upload', provenance: { source: 'case', field: 'id_proof', document: { file: 'pan.pdf', bytes: PAN.length, sha256: sha } } });
    const outcome = await executeAction(page, read, upload, resolveDocument(upload as Extract<Action, { type: 'upload' }>, ctx, verdict));
    expect(outcome.status).toBe('done');
    expect(outcome.message).toMatch(/attached pan\.pdf/);
    expect(await page.locator('#id').evaluate((el) => (el as HTMLInputElement).files?.[0]?.name)).toBe('pan.pdf');
    await page.getByRole('button', { name: 'Send documents' }).click();
    await page.getByRole('heading', { name: 'Documents received' }).waitFor();
    expect(received).toContainEqual({ name: 'id_proof', file: 'pan.pdf', sha256: sha });
  });

  it.each([
    ['a document the case does not list', 'passport', /lists no document "passport"/],
    ['a symbolic link that points out of the case folder', 'linked', /leads out of the case folder through a symbolic link/],
    ['a path through a linked folder outside', 'via_folder', /leads out of the case folder/],
    ['a kind of file not on the list', 'notes', /only \.pdf, \.jpg, \.jpeg, \.png files/],
    ['a file over the size cap', 'huge', /at most 5 MiB/],
    ['an empty file', 'empty', /empty file/],
  ])('refuses %s, and nothing is attached', async (_what, document, reason) => {
    const caseFile = loadCaseFile(join(caseDir, 'case.json'));
    const { page, read } = await open();
    const upload: Action = { type: 'upload', ref: ref(read, 'Identity proof (PDF)'), document };
    const verdict = checkAction(upload, context(read, caseFile));
    expect(verdict.verdict).toBe('block');
    expect(verdict.reason).toMatch(reason);
    expect(() => resolveDocument(upload as Extract<Action, { type: 'upload' }>, context(read, caseFile), verdict)).toThrow(/not checked by the guard/);
    expect(await page.locator('#id').evaluate((el) => (el as HTMLInputElement).files?.length)).toBe(0);
  });

  it('refuses a path outside the folder even when a case object names one (the loader refuses it first)', async () => {
    const { read } = await open();
    const caseFile = { ...loadCaseFile(join(caseDir, 'case.json')), documents: { up: '../elsewhere/secret.pdf', abs: join(outside, 'secret.pdf') } };
    for (const document of ['up', 'abs']) {
      const verdict = checkAction({ type: 'upload', ref: ref(read, 'Identity proof (PDF)'), document }, context(read, caseFile));
      expect(verdict.verdict).toBe('block');
      expect(verdict.reason).toMatch(/outside the case folder/);
    }
    writeFileSync(join(caseDir, 'dotdot.json'), JSON.stringify({ ...caseJson, documents: { up: '../elsewhere/secret.pdf' } }));
    expect(() => loadCaseFile(join(caseDir, 'dotdot.json'))).toThrow(/documents\.up.*stays inside the case file's folder/);
    // A folder the file names is never believed: the loader puts the real one in its place.
    writeFileSync(join(caseDir, 'folder.json'), JSON.stringify({ ...caseJson, folder: outside }));
    expect(loadCaseFile(join(caseDir, 'folder.json')).folder).toBe(caseDir);
  });

  it('refuses a case that was not read from a folder', async () => {
    const { read } = await open();
    const { folder: _folder, ...unplaced } = loadCaseFile(join(caseDir, 'case.json'));
    const verdict = checkAction({ type: 'upload', ref: ref(read, 'Identity proof (PDF)'), document: 'id_proof' }, context(read, unplaced));
    expect(verdict).toMatchObject({ verdict: 'block', reason: expect.stringMatching(/not read from a folder/) });
  });

  it('refuses the file input in a frame of another host, and a box that is not a file input', async () => {
    const caseFile = loadCaseFile(join(caseDir, 'case.json'));
    const { page, read } = await open();
    const inFrame = checkAction({ type: 'upload', ref: ref(read, 'Upload here', true), document: 'id_proof' }, context(read, caseFile));
    expect(inFrame.verdict).toBe('block');
    expect(inFrame.reason).toMatch(/b\.test/);
    const textBox = checkAction({ type: 'upload', ref: ref(read, 'Business name'), document: 'id_proof' }, context(read, caseFile));
    expect(textBox).toMatchObject({ verdict: 'block', rule: 'upload', reason: expect.stringMatching(/not a file upload/) });
    expect(await page.frameLocator('iframe').locator('#f').evaluate((el) => (el as HTMLInputElement).files?.length)).toBe(0);
  });

  it('attaches nothing when the file changed after the guard checked it, or when the executor gets no checked document', async () => {
    const caseFile = loadCaseFile(join(caseDir, 'case.json'));
    const { page, read } = await open();
    const upload = { type: 'upload', ref: ref(read, 'Identity proof (PDF)'), document: 'photo' } as const;
    const ctx = context(read, caseFile);
    const verdict = checkAction(upload, ctx);
    expect(verdict.verdict).toBe('allow');
    writeFileSync(join(caseDir, 'anand', 'photo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 9, 9, 9]));
    expect(() => resolveDocument(upload, ctx, verdict)).toThrow(/changed after the guard checked it/);
    const bare = await executeAction(page, read, upload);
    expect(bare.status).toBe('error');
    expect(bare.message).toMatch(/needs a checked case document/);
    expect(await page.locator('#id').evaluate((el) => (el as HTMLInputElement).files?.length)).toBe(0);
  });

  it('tells the model to upload, not fill, a file input', async () => {
    const caseFile = loadCaseFile(join(caseDir, 'case.json'));
    const { read } = await open();
    const verdict = checkAction({ type: 'fill', ref: ref(read, 'Identity proof (PDF)'), field: 'business_name' }, context(read, caseFile));
    expect(verdict).toMatchObject({ verdict: 'block', reason: expect.stringMatching(/attach one of the case documents with upload/) });
  });
});
