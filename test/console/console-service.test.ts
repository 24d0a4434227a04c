import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClerkDesk } from '../../src/console/clerk-desk';
import type { ConsoleService } from '../../src/console/console-service';
import type { CaseSummary, CredentialSummary, ModelStatus } from '../../src/shared/console-api';
import { CASES_DIR, openTestService, tempDir } from './support';

describe('ConsoleService requests (no browser)', () => {
  let service: ConsoleService;
  beforeAll(async () => {
    ({ service } = await openTestService({ env: { ANTHROPIC_API_KEY: 'sk-ant-test-key-never-shown', ANTHROPIC_BASE_URL: 'https://user:gw-secret@gateway.example/v1' } }));
  });
  afterAll(() => service.close());

  it('refuses an unknown method', async () => {
    await expect(service.handle('dropTables', {})).rejects.toThrow('Unknown method "dropTables"');
    await expect(service.handle('__proto__', {})).rejects.toThrow(/Unknown method/);
  });

  it('validates params with the contract before running anything', async () => {
    await expect(service.handle('getScreenshot', { hash: '../etc/passwd' })).rejects.toThrow(/Bad parameters for getScreenshot: hash/);
    await expect(service.handle('startRun', { file: '' })).rejects.toThrow(/Bad parameters for startRun: file/);
    await expect(service.handle('decide', { runId: 'r', decision: 'maybe' })).rejects.toThrow(/decision/);
    await expect(service.handle('setCredential', { clientId: 'a', portal: 'shops', username: 'u' })).rejects.toThrow(/password/);
  });

  it('lists the sample case files, all runnable', async () => {
    const cases = (await service.handle('listCases', {})) as CaseSummary[];
    expect(cases.map((c) => c.file)).toContain('shops-renewal-anand-bakery.json');
    expect(cases.filter((c) => c.problem)).toEqual([]);
  });

  it('reports the model without the key or a gateway password', async () => {
    const status = (await service.handle('modelStatus', {})) as ModelStatus;
    expect(status).toMatchObject({ planner: 'anthropic', keyPresent: true });
    expect(JSON.stringify(status)).not.toContain('sk-ant-test-key-never-shown');
    expect(JSON.stringify(status)).not.toContain('gw-secret');
  });

  it('lists the lab portals with their hosts and risky words', async () => {
    const portals = (await service.handle('listPortals', {})) as { id: string; lab: boolean; allowedHosts: string[]; riskyWords: string[] }[];
    expect(portals.map((p) => p.id).sort()).toEqual(['power', 'shops', 'tax']);
    expect(portals.every((p) => p.lab && p.allowedHosts.length > 0 && p.riskyWords.includes('submit'))).toBe(true);
  });

  it('saves, lists and removes logins without ever returning a password', async () => {
    await expect(service.handle('setCredential', { clientId: 'anand-bakery', portal: 'shops', username: 'anand', password: 'Pa55-word-xyz' })).resolves.toEqual({ saved: true });
    const list = (await service.handle('listCredentials', {})) as CredentialSummary[];
    expect(list).toEqual([expect.objectContaining({ clientId: 'anand-bakery', portal: 'shops', username: 'anand' })]);
    expect(JSON.stringify(list)).not.toContain('Pa55-word-xyz');
    await expect(service.handle('removeCredential', { clientId: 'anand-bakery', portal: 'shops' })).resolves.toEqual({ removed: true });
    await expect(service.handle('removeCredential', { clientId: 'anand-bakery', portal: 'shops' })).resolves.toEqual({ removed: false });
  });

  it('answers decide/answer on a run that waits for nothing with accepted: false', async () => {
    await expect(service.handle('decide', { runId: 'run-none', decision: 'approve' })).resolves.toEqual({ accepted: false });
    await expect(service.handle('answer', { runId: 'run-none', value: '123456' })).resolves.toEqual({ accepted: false });
  });

  it('names an unknown run and refuses case files outside the cases folder', async () => {
    await expect(service.handle('getRun', { runId: 'run-missing' })).rejects.toThrow('No run "run-missing"');
    await expect(service.handle('verifyRun', { runId: 'run-missing' })).rejects.toThrow('No run "run-missing"');
    await expect(service.handle('startRun', { file: '../package.json' })).rejects.toThrow(/not a case file in the cases folder/);
  });

  it('refuses the Claude planner without a key before anything runs', async () => {
    const { service: keyless } = await openTestService();
    try {
      await expect(keyless.handle('startRun', { file: 'shops-renewal-anand-bakery.json', planner: 'anthropic' })).rejects.toThrow(/ANTHROPIC_API_KEY/);
      expect(await keyless.handle('listRuns', {})).toEqual([]);
    } finally {
      await keyless.close();
    }
  });
});

describe('case files with problems', () => {
  it('are listed with a one-line reason instead of hiding', async () => {
    const dir = tempDir('pd-cases-');
    mkdirSync(join(dir, 'office'));
    writeFileSync(join(dir, 'not-json.json'), '{ oops');
    writeFileSync(join(dir, 'office', 'no-fields.json'), JSON.stringify({ caseId: 'c-1', clientId: 'x', portal: 'shops', task: 't', fields: {} }));
    writeFileSync(join(dir, 'unknown-portal.json'), JSON.stringify({ caseId: 'c-2', clientId: 'x', portal: 'water', task: 't', fields: { a: '1' } }));
    const { service } = await openTestService({ casesDir: dir });
    try {
      const cases = (await service.handle('listCases', {})) as CaseSummary[];
      expect(cases.map((c) => [c.file, c.caseId, c.problem])).toEqual([
        ['not-json.json', 'not-json', expect.stringMatching(/not valid JSON/)],
        ['office/no-fields.json', 'c-1', expect.stringMatching(/fields: at least one field is needed/)],
        ['unknown-portal.json', 'c-2', expect.stringMatching(/portal "water": no portal profile/)],
      ]);
      await expect(service.handle('startRun', { file: 'unknown-portal.json' })).rejects.toThrow(/no portal profile/);
    } finally {
      await service.close();
    }
  });

  it('the default cases folder exists', () => {
    expect(CASES_DIR).toMatch(/resources\/cases$/);
  });
});

describe('ClerkDesk', () => {
  const request = (runId: string) => ({
    runId,
    step: 3,
    action: { type: 'click' as const, ref: 'r1' },
    element: 'button "Submit application"',
    verdict: { verdict: 'needs_approval' as const, rule: 'risky-control' as const, reason: 'says submit' },
  });

  it('parks each run until its own answer comes, and accepts one answer only', async () => {
    const changed: string[] = [];
    const desk = new ClerkDesk('clerk:test', (id) => changed.push(id));
    const a = desk.request(request('run-a'));
    const b = desk.ask({ runId: 'run-b', step: 1, kind: 'otp', question: 'code?', field: null });
    expect(desk.pendingApproval('run-a')?.element).toBe('button "Submit application"');
    expect(desk.pendingInput('run-b')?.kind).toBe('otp');
    expect(desk.answer('run-b', '424242')).toBe(true);
    await expect(b).resolves.toBe('424242');
    expect(desk.pendingApproval('run-a')).not.toBeNull();
    expect(desk.decide('run-a', 'approve', 'checked')).toBe(true);
    expect(desk.decide('run-a', 'deny')).toBe(false);
    await expect(a).resolves.toEqual({ decision: 'approve', by: 'clerk:test', note: 'checked' });
    expect(changed).toEqual(['run-a', 'run-b', 'run-b', 'run-a']);
  });

  it('answers nothing on the clerk’s behalf when the console closes: the parked runs are handed to the service to record as interrupted', async () => {
    const desk = new ClerkDesk('clerk:test', () => undefined);
    const answered: unknown[] = [];
    const failed: string[] = [];
    const a = desk.request(request('run-a')).then((d) => answered.push(d), (err: Error) => failed.push(err.name));
    const b = desk.ask({ runId: 'run-b', step: 1, kind: 'missing_value', question: 'PAN?', field: 'owner_pan' }).then((v) => answered.push(v), (err: Error) => failed.push(err.name));
    expect(desk.abandonAll().sort()).toEqual(['run-a', 'run-b']);
    await Promise.all([a, b]);
    expect(answered).toEqual([]);
    expect(failed).toEqual(['ConsoleClosedError', 'ConsoleClosedError']);
    expect(desk.pendingApproval('run-a')).toBeNull();
    expect(desk.decide('run-a', 'deny')).toBe(false);
  });

  it('parks a bot check until the clerk takes the portal and hands it back; a declined one says so', async () => {
    const desk = new ClerkDesk('clerk:test', () => undefined);
    const bot = desk.takeOver({ runId: 'run-a', step: 4, reason: 'bot_check', detail: 'a CAPTCHA frame (www.google.example)' });
    expect(desk.pendingTakeOver('run-a')).toMatchObject({ state: 'offered', step: 4 });
    expect(desk.isTakenOver('run-a')).toBe(false);
    expect(desk.startTakeOver('run-a', null)).toBe(true);
    expect(desk.isTakenOver('run-a')).toBe(true);
    expect(desk.handBack('run-a', 'hand_back', 'ticked the box')).toBe(true);
    await expect(bot).resolves.toMatchObject({ handedBack: true, by: 'clerk:test', note: 'ticked the box', takenAt: expect.any(String) });
    expect(desk.handBack('run-a', 'hand_back')).toBe(false);

    const declined = desk.takeOver({ runId: 'run-b', step: 2, reason: 'bot_check', detail: 'a bot check' });
    expect(desk.handBack('run-b', 'decline')).toBe(true);
    await expect(declined).resolves.toMatchObject({ handedBack: false, by: 'clerk:test' });
  });

  it('hands a live run’s portal to the clerk at its next read when asked, and only a live one', async () => {
    const desk = new ClerkDesk('clerk:test', () => undefined);
    expect(desk.startTakeOver('run-gone', null)).toBe(false);
    expect(desk.startTakeOver('run-a', { step: 6 })).toBe(true);
    expect(desk.wantsTakeOver('run-a')).toBe(true);
    expect(desk.pendingTakeOver('run-a')).toMatchObject({ state: 'asked', step: 6, reason: 'clerk' });
    expect(desk.isTakenOver('run-a')).toBe(false);
    const taken = desk.takeOver({ runId: 'run-a', step: 7, reason: 'clerk', detail: 'asked' });
    expect(desk.wantsTakeOver('run-a')).toBe(false);
    expect(desk.isTakenOver('run-a')).toBe(true);
    desk.release('run-a');
    await expect(taken).resolves.toMatchObject({ handedBack: false, by: 'console' });
  });
});
