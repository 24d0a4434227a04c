import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../src/agent/browser/chromium';
import { loadCaseFile } from '../../../src/agent/case/case-files';
import type { PlanInput, PlanResult, Planner } from '../../../src/agent/decide/planner';
import { carriedValues } from '../../../src/agent/guard/request-values';
import { executeRun } from '../../../src/service/run-service';
import type { Action } from '../../../src/shared/action';
import type { ApprovalDecision, ApprovalGate, ApprovalRequest } from '../../../src/shared/clerk';
import { PortalProfile } from '../../../src/shared/portal-profile';
import { openStore } from '../../../src/store';
import { serveOnLoopback, type LoopbackSite } from '../../support/loopback-site';

/**
 * The approval card names the files a held request carries: the file name it is sent under, its
 * size and the sha256 of the bytes that would leave, and which case document that is (the same
 * sha256 the upload step recorded). A file the page made up under the same name is not believed:
 * its own hash, "not from the case". Real Chromium, the guarded context, the commit gate and the
 * run loop; the page posts the form by script, so the gate holds the request and asks the clerk.
 */

const dir = mkdtempSync(join(tmpdir(), 'pd-file-card-'));
mkdirSync(join(dir, 'asha'));
const PAN = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x2d, 0x31, 0x2e, 0x34, 0x0a, 0xff, 0xfe, 0x00, 0x80, 0x25, 0x25, 0x45, 0x4f, 0x46]); // binary, not UTF-8
writeFileSync(join(dir, 'asha', 'pan.pdf'), PAN);
writeFileSync(
  join(dir, 'case.json'),
  JSON.stringify({ caseId: 'card-1', clientId: 'asha', portal: 'docs', task: 'licence', fields: { business_name: 'Asha Stores' }, documents: { id_proof: 'asha/pan.pdf' } }),
);
const PAN_SHA = createHash('sha256').update(PAN).digest('hex');

const PAGE = `<!doctype html><title>Licence</title><h1>Apply for a licence</h1>
<form id="f" method="post" action="/apply/submit" enctype="multipart/form-data">
<label for="id">Identity proof</label><input id="id" name="id_proof" type="file">
<label for="bn">Business name</label><input id="bn" name="business_name">
<button type="button" id="send">Send application</button></form>
<script>document.getElementById('send').onclick=()=>{const fd=new FormData(document.getElementById('f'));
fd.append('extra',new File(['%PDF made up by the page'],'pan.pdf',{type:'application/pdf'}));
fetch('/apply/submit',{method:'POST',body:fd}).then(r=>r.text()).then(t=>{document.body.innerHTML=t;});};</script>`;

let site: LoopbackSite;
let port = 0;
let browser: Browser;
const received: number[] = [];

beforeAll(async () => {
  site = await serveOnLoopback((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/apply/submit') {
        received.push(Buffer.concat(chunks).length);
        res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Application received</h1><p>Your number is DOC-1234.</p>');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    });
  });
  port = site.port;
  browser = await launchChromium({ hostResolverRules: 'MAP docs.test 127.0.0.1' });
});
afterAll(async () => {
  await browser?.close();
  await site.close();
});

/** Attaches the document and types the name, then presses Send; then stops. */
class ScriptedPlanner implements Planner {
  readonly id = 'scripted';
  readonly description = 'test script';
  start(): void {}
  async decide(input: PlanInput): Promise<PlanResult> {
    const ref = (name: string) => input.observation.controls.find((c) => c.name === name)?.ref ?? 'e0';
    const turns: Action[][] = [
      [
        { type: 'upload', ref: ref('Identity proof'), document: 'id_proof' },
        { type: 'fill', ref: ref('Business name'), field: 'business_name' },
      ],
      [{ type: 'click', ref: ref('Send application') }],
    ];
    const actions = turns[input.step] ?? [{ type: 'fail', reason: 'the script is over' }];
    return { turn: { reasoning: 'scripted', actions }, call: null };
  }
}

class RecordingClerk implements ApprovalGate {
  readonly asked: ApprovalRequest[] = [];
  async request(req: ApprovalRequest): Promise<ApprovalDecision> {
    this.asked.push(req);
    return { decision: 'deny', by: 'test clerk' };
  }
}

describe('the approval card for a request carrying files', () => {
  it('names the case document by file name, size and sha256 of the bytes sent, and marks a made-up file of the same name not from the case', async () => {
    const profile = PortalProfile.parse({
      id: 'docs',
      name: 'Documents portal',
      startUrl: `http://docs.test:${port}/`,
      allowedHosts: [`docs.test:${port}`],
      allowHttp: true,
      submitPaths: ['/apply/submit'],
      confirmation: { applicationNumberPattern: 'DOC-\\d{4}', pageContains: 'received' },
    });
    const clerk = new RecordingClerk();
    const store = openStore(join(dir, 'runs.sqlite'));
    try {
      const run = await executeRun(
        { store, browser, approvals: clerk, inputs: { ask: async () => null }, credentials: { get: async () => null } },
        { caseFile: loadCaseFile(join(dir, 'case.json')), profile, planner: 'rules', plannerInstance: new ScriptedPlanner(), approveMode: 'ask', limits: { maxSteps: 4 } },
      );
      const held = clerk.asked.map((a) => a.request).find((r) => r?.url.endsWith('/apply/submit'));
      expect(held, JSON.stringify(clerk.asked.map((a) => a.verdict))).toBeDefined();
      expect(held!.values).toEqual([
        { name: 'id_proof', value: `pan.pdf, ${PAN.length} bytes, sha256 ${PAN_SHA}`, origin: 'case', field: 'document id_proof' },
        { name: 'business_name', value: 'Asha Stores', origin: 'case', field: 'business_name' },
        { name: 'extra', value: expect.stringMatching(/^pan\.pdf, 24 bytes, sha256 [0-9a-f]{64}$/), origin: 'not_from_case' },
      ]);
      expect(held!.values[2]!.value).not.toContain(PAN_SHA);
      // Denied: nothing reached the portal, and the run says so.
      expect(received).toEqual([]);
      expect(run.status).toBe('failed');
      // The upload step recorded the same name and sha256 the card shows.
      const steps = await store.listSteps(run.runId);
      const upload = steps.flatMap((s) => s.actions).find((a) => a.action.type === 'upload');
      expect(upload?.verdict.provenance?.document).toMatchObject({ file: 'pan.pdf', sha256: PAN_SHA });
    } finally {
      store.close();
    }
  }, 120_000);

  it('without the body bytes names the file but claims no hash', () => {
    const body = '--B\r\nContent-Disposition: form-data; name="id_proof"; filename="pan.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF\r\n--B--\r\n';
    expect(carriedValues('http://x/apply/submit', body, 'multipart/form-data; boundary=B')).toEqual([
      { name: 'id_proof', value: 'pan.pdf (a file; its bytes were not readable here)', file: { file: 'pan.pdf' } },
    ]);
  });
});
