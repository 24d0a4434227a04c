import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { loadCaseFile } from '../../src/agent/case/case-files';
import { loadPortalProfile } from '../../src/agent/case/portal-profiles';
import type { RunListener } from '../../src/agent/loop/run-loop';
import { bindLabProfile, startLab, type Lab, type LabVariantInput } from '../../lab';
import type { CaseFile } from '../../src/shared/case-file';
import type { ApprovalGate, InputSource } from '../../src/shared/clerk';
import type { CredentialSource, LoginStateStore } from '../../src/shared/credentials';
import { LabCredentials } from '../../lab/demo/lab-portals';
import type { PlannerKind } from '../../src/service/planners';
import { executeRun, type FinishedRun, type RunRequest } from '../../src/service/run-service';
import { openStore, type Store } from '../../src/store';
import { EncryptedLoginStateStore, KeyFileSource } from '../../src/vault';
import { BIN, REPO } from '../support/cli';
import { RecordingApprovals, ScriptedInputs, workerBrowser } from '../support/engine';

export { RecordingApprovals, ScriptedInputs };
export const CASES_DIR = join(REPO, 'resources/cases');

export function tempDir(prefix = 'pd-real-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A case file from resources/cases, optionally changed (another client, a field left out...). */
export function caseFrom(file: string, change: (c: CaseFile) => CaseFile = (c) => c): CaseFile {
  return change(loadCaseFile(join(CASES_DIR, file)));
}

/** Writes a case file to a temp folder for the CLI. */
export function writeCase(dir: string, caseFile: CaseFile): string {
  const path = join(dir, `${caseFile.caseId}.json`);
  writeFileSync(path, JSON.stringify(caseFile, null, 2));
  return path;
}

export interface BenchRun {
  variant?: LabVariantInput;
  approvals?: ApprovalGate;
  inputs?: InputSource;
  credentials?: CredentialSource;
  loginStates?: LoginStateStore;
  store?: Store;
  listener?: RunListener;
  planner?: PlannerKind;
  env?: Record<string, string | undefined>;
  request?: Partial<RunRequest>;
  /** Leave the lab's variant for the client as it is (a second run of the same client). */
  keepVariant?: boolean;
}

/** One lab, the worker's Chromium, temp stores and an encrypted login-state store for a test file. */
export class RealityBench {
  lab!: Lab;
  browser!: Browser;
  readonly dir = tempDir('pd-bench-');
  private readonly stores: Store[] = [];
  readonly loginStates = new EncryptedLoginStateStore({ dir: join(this.dir, 'vault'), keySource: new KeyFileSource(join(this.dir, 'vault.key')) });

  async start(): Promise<this> {
    this.lab = await startLab();
    this.browser = await workerBrowser(this.lab);
    return this;
  }

  /** The worker's browser stays for the next file, with none of this file's sessions left open in it. */
  async stop(): Promise<void> {
    for (const s of this.stores) s.close();
    await Promise.all((this.browser?.contexts() ?? []).map((c) => c.close().catch(() => undefined)));
    await this.lab?.stop();
  }

  store(name = `s${this.stores.length}`): Store {
    const store = openStore(join(this.dir, `${name}.sqlite`));
    this.stores.push(store);
    return store;
  }

  async run(caseFile: CaseFile, o: BenchRun = {}): Promise<FinishedRun & { store: Store }> {
    const profile = bindLabProfile(loadPortalProfile(caseFile.portal), this.lab.port);
    if (!o.keepVariant) this.lab.configure(caseFile.clientId, o.variant ?? {});
    const store = o.store ?? this.store();
    const finished = await executeRun(
      {
        store,
        browser: this.browser,
        approvals: o.approvals ?? new RecordingApprovals(),
        inputs: o.inputs ?? new ScriptedInputs(() => null),
        credentials: o.credentials ?? new LabCredentials(),
        loginStates: o.loginStates,
        env: o.env,
      },
      { caseFile, profile, planner: o.planner ?? 'rules', approveMode: 'ask', listener: o.listener, ...o.request },
    );
    return { ...finished, store };
  }
}

/** Step indices are 0..n-1 with none missing, and the hash chain holds. */
export async function stepsIntact(store: Store, runId: string): Promise<{ ok: boolean; indices: number[]; chain: boolean }> {
  const steps = await store.listSteps(runId);
  const indices = steps.map((s) => s.index);
  const contiguous = indices.every((i, n) => i === n);
  const chain = (await store.verifyRun(runId)).ok;
  return { ok: contiguous && chain, indices, chain };
}

/** How often `secret` occurs in `haystack` as UTF-8, UTF-16LE, base64 or hex. */
export function occurrences(haystack: Buffer | string, secret: string): number {
  const bytes = typeof haystack === 'string' ? Buffer.from(haystack, 'utf8') : haystack;
  const forms = [Buffer.from(secret, 'utf8'), Buffer.from(secret, 'utf16le'), Buffer.from(Buffer.from(secret).toString('base64')), Buffer.from(Buffer.from(secret).toString('hex'))];
  let n = 0;
  for (const form of forms) {
    for (let at = bytes.indexOf(form); at >= 0; at = bytes.indexOf(form, at + 1)) n++;
  }
  return n;
}

/** A `portal-desk` process whose stderr a test can watch line by line. */
export interface CliProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves when a stderr line matches (or rejects when the process ends first). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startCli(args: string[], env: Record<string, string>): CliProcess {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const watchers: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    for (const w of [...watchers]) {
      const m = err.match(w.pattern);
      if (m) {
        watchers.splice(watchers.indexOf(w), 1);
        w.resolve(m);
      }
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, timeoutMs = 240_000) {
      const now = err.match(pattern);
      if (now) return Promise.resolve(now);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern} in stderr:\n${err.slice(-3000)}`)), timeoutMs);
        watchers.push({
          pattern,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m);
          },
        });
        void exited.then(() => {
          clearTimeout(timer);
          reject(new Error(`the process ended before ${pattern} showed in stderr:\n${err.slice(-3000)}`));
        });
      });
    },
  };
}
