import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../src/agent/browser/chromium';
import { loadCaseFile } from '../../src/agent/case/case-files';
import { loadPortalProfile } from '../../src/agent/case/portal-profiles';
import { bindLabProfile, startLab, type Lab, type LabVariantInput } from '../../lab';
import type { ApprovalDecision, ApprovalGate, ApprovalRequest, InputRequest, InputSource } from '../../src/shared/clerk';
import type { CaseFile } from '../../src/shared/case-file';
import { LabCredentials } from '../../lab/demo/lab-portals';
import { executeRun, type FinishedRun, type RunRequest } from '../../src/service/run-service';
import { openStore, type Store } from '../../src/store';
import { REPO } from './cli';

export const CASES_DIR = join(REPO, 'resources/cases');
export const sampleCases = (): string[] => readdirSync(CASES_DIR).filter((f) => f.endsWith('.json')).sort();

/** A clerk stand-in that approves every gated action and records what it was asked. */
export class RecordingApprovals implements ApprovalGate {
  readonly asked: ApprovalRequest[] = [];
  constructor(private readonly decision: 'approve' | 'deny' = 'approve') {}
  async request(req: ApprovalRequest): Promise<ApprovalDecision> {
    this.asked.push(req);
    return { decision: this.decision, by: 'test-clerk' };
  }
}

export class ScriptedInputs implements InputSource {
  readonly asked: InputRequest[] = [];
  constructor(private readonly answer: (req: InputRequest) => string | null) {}
  async ask(req: InputRequest): Promise<string | null> {
    this.asked.push(req);
    return this.answer(req);
  }
}

/** Whether the lab suite runs on the https lab: `PORTAL_DESK_LAB_TLS=1`. */
export function labTlsRequested(): boolean {
  return process.env.PORTAL_DESK_LAB_TLS === '1';
}

/** A browser for `lab`: its host names mapped to it, and its CA trusted when it serves https. */
export function launchForLab(lab: Lab): Promise<Browser> {
  return launchChromium({ hostResolverRules: lab.hostResolverRules, ...(lab.tlsCa ? { portalCa: lab.tlsCa } : {}) });
}

/**
 * One Chromium per worker (issue 27): integration files share their worker's modules, so the
 * browser one file launched serves the next. Only for the plain lab (every plain lab maps every
 * name to the loopback the same way); an https lab's CA is its own, so its browser is too. A file
 * that closes or kills the browser leaves a disconnected one, and the next file launches anew.
 */
const shared = new Map<string, Promise<Browser>>();

/** The worker's browser for a plain lab (launched when there is none, or it was closed). */
export async function workerBrowser(lab: Lab): Promise<Browser> {
  const known = await shared.get(lab.hostResolverRules)?.catch(() => null);
  if (known?.isConnected()) return known;
  const launching = launchForLab(lab);
  shared.set(lab.hostResolverRules, launching);
  return launching;
}

/** One lab, a browser (the worker's, for the plain lab) and fresh stores for a test file. */
export class EngineBench {
  lab!: Lab;
  browser!: Browser;
  private readonly dir = mkdtempSync(join(tmpdir(), 'pd-engine-'));
  private stores: Store[] = [];
  /** The worker's browser when this bench uses it (a test may put another in `browser`). */
  private workerBrowser: Browser | undefined;

  /** `tls`: the https lab (default: `PORTAL_DESK_LAB_TLS=1`). */
  constructor(private readonly options: { tls?: boolean } = {}) {}

  async start(): Promise<this> {
    this.lab = await startLab({ tls: this.options.tls ?? labTlsRequested() });
    this.browser = this.lab.tlsCa ? await launchForLab(this.lab) : (this.workerBrowser = await workerBrowser(this.lab));
    return this;
  }

  /** Closes the file's stores and lab; the worker's browser stays for the next file, with none of this file's sessions left open in it. */
  async stop(): Promise<void> {
    for (const s of this.stores) s.close();
    if (this.browser && this.browser === this.workerBrowser) await Promise.all(this.browser.contexts().map((c) => c.close().catch(() => undefined)));
    else await this.browser?.close();
    await this.lab?.stop();
  }

  store(name = `s${this.stores.length}`): Store {
    const store = openStore(join(this.dir, `${name}.sqlite`));
    this.stores.push(store);
    return store;
  }

  caseFile(file: string): CaseFile {
    return loadCaseFile(join(CASES_DIR, file));
  }

  async run(
    caseFile: CaseFile,
    options: { variant?: LabVariantInput; approvals?: ApprovalGate; inputs?: InputSource; store?: Store; request?: Partial<RunRequest> } = {},
  ): Promise<FinishedRun & { store: Store; gate: ApprovalGate }> {
    const profile = bindLabProfile(loadPortalProfile(caseFile.portal), this.lab.port, this.lab.scheme);
    this.lab.configure(caseFile.clientId, options.variant ?? {});
    const store = options.store ?? this.store();
    const approvals = options.approvals ?? new RecordingApprovals();
    const finished = await executeRun(
      {
        store,
        browser: this.browser,
        approvals,
        inputs: options.inputs ?? new ScriptedInputs(() => null),
        credentials: new LabCredentials(),
      },
      { caseFile, profile, planner: 'rules', approveMode: 'ask', ...options.request },
    );
    return { ...finished, store, gate: approvals };
  }
}
