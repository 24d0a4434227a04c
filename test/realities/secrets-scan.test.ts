import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareSubmission, labAccount, startLab, type Lab } from '../../lab';
import { openStore } from '../../src/store';
import { runCli } from '../support/cli';
import { labFormFillingModel, startMessagesApi, type MessagesApi } from '../../lab/messages-api';
import { caseFrom, occurrences, tempDir, writeCase } from './support';
import { filesUnder } from '../vault/temp-vault';

/**
 * Passwords and one-time codes never leave the browser's input fields: a scan of the store
 * file (raw bytes, -wal and -shm included, read while runs write), the data folder, the kept
 * receipts, the CLI's stdout and stderr, every exported run and every model request finds
 * none of them. Logins come from the vault (`portal-desk vault set`), ahead of the lab's. The two
 * runs with one-time codes (at sign-in, and before submit) are also the per-commit check of the
 * code's path: one wait for the clerk, the code typed by code, masked in the step log, in its
 * place in the flow, and a submission equal to the case (issue 27: otp.test.ts ran two more forms for it).
 */
describe('no secret anywhere (real CLI processes, loopback Messages API)', () => {
  let lab: Lab;
  let api: MessagesApi;
  const dir = tempDir('pd-scan-');
  const db = join(dir, 'runs.sqlite');
  const home = join(dir, 'home');
  const codesFile = join(dir, 'codes.txt');
  const env = { PORTAL_DESK_HOME: home };
  const outputs: string[] = [];
  const runIds: string[] = [];
  const rawHits = new Map<string, number>();
  let watching = true;

  const signIn = caseFrom('tax-return-sahyadri-foods-sep-2026.json');
  const submit = caseFrom('shops-renewal-meera-kulkarni.json');
  const refused = caseFrom('power-name-change-reddy-farm.json');
  const wrongPassword = 'Wrong!vault-pw-4431';
  const passwords = [labAccount(signIn.clientId).password, labAccount(submit.clientId).password, labAccount(refused.clientId).password, wrongPassword];

  /** Reads the store's files again and again while the CLI writes, so the -wal is seen before its checkpoint. */
  async function watchStoreFiles(): Promise<void> {
    while (watching) {
      for (const suffix of ['', '-wal', '-shm', '-journal']) {
        const path = `${db}${suffix}`;
        if (!existsSync(path)) continue;
        let bytes: Buffer;
        try {
          bytes = readFileSync(path);
        } catch {
          continue;
        }
        for (const secret of [...passwords, ...codes()]) rawHits.set(`${secret}@${suffix || 'db'}`, Math.max(rawHits.get(`${secret}@${suffix || 'db'}`) ?? 0, occurrences(bytes, secret)));
      }
      await new Promise((r) => setTimeout(r, 300));
    }
  }
  const codes = (): string[] => (existsSync(codesFile) ? readFileSync(codesFile, 'utf8').split('\n').filter(Boolean) : []);

  beforeAll(async () => {
    lab = await startLab();
    api = await startMessagesApi(labFormFillingModel(signIn, /\b(PTX-\d{4}-\d{6})\b/));
  }, 120_000);
  afterAll(async () => {
    watching = false;
    await api?.close();
    await lab?.stop();
  });

  it('vault logins, OTP at sign-in (Claude planner) and before submit (rules), a refused login: 0 occurrences of any password or code', async () => {
    const watcher = watchStoreFiles();
    const otpScript = join(dir, 'otp.js');
    writeFileSync(
      otpScript,
      `const [port, token, client, out] = process.argv.slice(2);
fetch('http://127.0.0.1:' + port + '/api/otp/' + client, { headers: { 'x-lab-token': token } })
  .then((r) => r.json()).then((j) => { require('node:fs').appendFileSync(out, j.code + '\\n'); console.log(j.code); });`,
    );
    const otpCommand = (clientId: string) => `node ${otpScript} ${lab.port} ${lab.controlToken} ${clientId} ${codesFile}`;
    const vaultSet = async (clientId: string, portal: string, password: string) => {
      const r = await runCli(['vault', 'set', '--client', clientId, '--portal', portal, '--username', clientId, '--password-stdin'], { env, input: `${password}\n` });
      expect(r.code, r.stderr).toBe(0);
      outputs.push(r.stdout, r.stderr);
    };
    await vaultSet(signIn.clientId, 'tax', labAccount(signIn.clientId).password);
    await vaultSet(submit.clientId, 'shops', labAccount(submit.clientId).password);
    await vaultSet(refused.clientId, 'power', wrongPassword);
    const list = await runCli(['vault', 'list'], { env });
    outputs.push(list.stdout, list.stderr);
    expect(list.stdout).toContain(signIn.clientId);

    const labUrl = `http://127.0.0.1:${lab.port}`;
    const run = async (caseFile: typeof signIn, extra: string[], extraEnv: Record<string, string> = {}) => {
      const r = await runCli(['run', '--case', writeCase(dir, caseFile), '--approve', 'all', '--db', db, '--lab-url', labUrl, '--json', '--otp-command', otpCommand(caseFile.clientId), ...extra], {
        env: { ...env, ...extraEnv },
        timeoutMs: 400_000,
      });
      outputs.push(r.stdout, r.stderr);
      const id = /run id: (run-[\w-]+)/.exec(r.stderr)?.[1];
      if (id) runIds.push(id);
      return r;
    };

    lab.configure(signIn.clientId, { otp: 'signin' });
    const a = await run(signIn, ['--model', 'anthropic'], { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: api.url });
    expect(a.code, a.stderr.slice(-3000)).toBe(0);
    lab.configure(submit.clientId, { otp: 'submit' });
    const b = await run(submit, []);
    expect(b.code, b.stderr.slice(-3000)).toBe(0);
    lab.configure(refused.clientId, {});
    const c = await run(refused, []);
    expect(c.code).toBe(1);
    expect(JSON.parse(c.stdout).reason).toMatch(/refused the stored login .*portal-desk vault set/);

    watching = false;
    await watcher;
    expect(codes()).toHaveLength(2);
    expect(api.requests.length).toBeGreaterThan(3);
    expect(lab.submissions()).toHaveLength(2);

    const store = openStore(db);
    const exports = await Promise.all(runIds.map(async (id) => JSON.stringify(await store.exportRun(id))));
    // The one-time codes in the step log: each run waited for the clerk's code once, code typed it (no model turn), and the
    // step shows it masked; at sign-in it comes before the form, before submit after the Submit click. Each submission is the case.
    for (const [r, caseFile, otp] of [
      [a, signIn, 'signin'],
      [b, submit, 'submit'],
    ] as const) {
      expect(r.stderr, otp).toContain('== awaiting_input: Waiting for you: type the one-time code');
      const steps = await store.listSteps((JSON.parse(r.stdout) as { runId: string }).runId);
      const otpSteps = steps.filter((s) => s.events.some((e) => e.type === 'otp'));
      expect(otpSteps, otp).toHaveLength(1);
      expect(otpSteps[0]!.model, otp).toBeNull();
      expect(otpSteps[0]!.events.find((e) => e.type === 'otp')!.message).toMatch(/The clerk gave the one-time code •{4,}; code typed it into the portal/);
      const submitStep = steps.findIndex((s) => s.actions.some((a) => a.element?.includes('Submit')));
      expect(submitStep, otp).toBeGreaterThanOrEqual(0);
      expect(otp === 'signin' ? steps.indexOf(otpSteps[0]!) < submitStep : steps.indexOf(otpSteps[0]!) > submitStep, otp).toBe(true);
      const submissions = lab.submissions({ clientId: caseFile.clientId });
      expect(submissions, otp).toHaveLength(1);
      expect(compareSubmission(caseFile.fields, submissions[0]!.fields), otp).toEqual([]);
    }
    store.close();
    expect(exports).toHaveLength(3);

    const found: string[] = [];
    for (const secret of [...passwords, ...codes()]) {
      const where: Record<string, number> = {
        logs: outputs.reduce((n, o) => n + occurrences(o, secret), 0),
        exports: exports.reduce((n, e) => n + occurrences(e, secret), 0),
        modelRequests: api.requests.reduce((n, r) => n + occurrences(r.raw, secret), 0),
        files: filesUnder(dir).reduce((n, f) => (f.path === codesFile ? n : n + occurrences(f.bytes, secret)), 0),
      };
      for (const [key, n] of rawHits) if (key.startsWith(`${secret}@`)) where[`store:${key.slice(secret.length + 1)}`] = n;
      for (const [place, n] of Object.entries(where)) if (n > 0) found.push(`${n}× in ${place}`);
    }
    expect(found).toEqual([]);
    // The store's -wal was read while it held data.
    expect([...rawHits.keys()].some((k) => k.endsWith('@-wal'))).toBe(true);
    // A receipt was kept next to the database for each submission.
    expect(filesUnder(join(dir, 'receipts')).length).toBe(2);
  }, 1_200_000);
});
