import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLab, type Lab } from '../../lab';
import { loadPortalProfile } from '../../src/agent/case/portal-profiles';
import { loadCaseFile } from '../../src/agent/case/case-files';
import { PortalProfile } from '../../src/shared/portal-profile';
import { RunSummary } from '../../src/shared/run';
import { REPO, runCli } from '../support/cli';

/**
 * `portal-desk portals learn` against the lab's shops portal, as an office lead would use it: one
 * supervised run (--approve all) with a profile that knows only the start address, the draft
 * written to a fresh folder; then another client's case of the portal runs to `done` with the
 * drafted profile and exactly one approval (the submission). The draft is compared field by field
 * with the hand-written resources/portals/shops.json, every difference explained. The learning run
 * has an attack on the portal's pages, whose hosts and paths stay out of the draft.
 *
 * One learning run serves both tests (they only read it): the attack is on its pages, so the draft
 * compared field by field with the hand-written profile is also the draft the attack did not reach.
 */

const LEARN_CASE = join(REPO, 'resources/cases/shops-renewal-anand-bakery.json');
// Another client whose form leaves the same boxes ticked or empty (correspondence address of its own).
const SECOND_CASE = join(REPO, 'resources/cases/shops-renewal-meera-kulkarni.json');

function learn(lab: Lab, dir: string, caseFile: string): Promise<Awaited<ReturnType<typeof runCli>>> {
  return runCli(
    ['portals', 'learn', '--id', 'shops', '--name', 'Shops and Establishments Registration', '--start-url', 'http://shops.portal.example/', '--case', caseFile,
      '--approve', 'all', '--db', join(dir, 'learn.db'), '--out', join(dir, 'profiles'), '--yes', '--json', '--lab-url', `http://127.0.0.1:${lab.port}`],
    { timeoutMs: 300_000 },
  );
}

describe('portals learn: a portal profile from one supervised run', () => {
  let lab: Lab;
  let dir: string;
  let learned: Awaited<ReturnType<typeof runCli>>;
  beforeAll(async () => {
    lab = await startLab();
    dir = mkdtempSync(join(tmpdir(), 'pd-learn-'));
    // A script on the portal's pages posts the typed answers to another host (and pings the portal first).
    lab.configure(loadCaseFile(LEARN_CASE).clientId, { attack: 'hidden-form-post' });
    learned = await learn(lab, dir, LEARN_CASE);
  }, 600_000);
  afterAll(async () => {
    await lab?.stop();
  });

  it('learns the shops portal; a second case runs to done with the draft and one approval; the draft beside the hand-written profile', async () => {
    expect(learned.stderr).toContain('Written:');
    expect(learned.code).toBe(0);
    const report = JSON.parse(learned.stdout) as { notes: { entry: string; from: string }[]; problems: string[] };
    expect(report.problems).toEqual([]);
    // Every entry says where it came from.
    expect(report.notes.find((n) => n.entry.startsWith('submitPaths'))?.from).toMatch(/the filing at step \d+ \(click button "Submit application"/);
    expect(report.notes.find((n) => n.entry.startsWith('confirmation'))?.from).toMatch(/page “Application submitted” \(\/confirmation\/\*\)/);

    // Nothing of the case or the login in the file.
    const text = readFileSync(join(dir, 'profiles', 'shops.json'), 'utf8');
    const caseFile = loadCaseFile(LEARN_CASE);
    for (const value of Object.values(caseFile.fields)) {
      if (typeof value === 'string' && value.length >= 4) expect(text.toLowerCase()).not.toContain(value.toLowerCase());
    }
    expect(text).not.toMatch(/SHP-2026-\d{6}/);

    // The same load checks as any profile.
    const drafted = loadPortalProfile('shops', [join(dir, 'profiles')]);
    const hand = loadPortalProfile('shops', [join(REPO, 'resources/portals')]);
    const same = ['id', 'startUrl', 'allowedHosts', 'allowHttp', 'needsServiceWorkers', 'signIn', 'otp', 'confirmation', 'applicationsUrl', 'submitPaths', 'forbiddenPaths', 'allowedPaths'] as const;
    for (const key of same) expect(drafted[key], key).toEqual(hand[key]);
    // The differences, each explained:
    // name: the lead gives it (--name); the hand-written one adds "(portal lab)".
    expect(drafted.name).toBe('Shops and Establishments Registration');
    // challengeHosts: the run met no CAPTCHA, so no challenge host was seen (none is guessed).
    expect(drafted.challengeHosts).toEqual([]);
    expect(hand.challengeHosts).toEqual(['www.google.example']);
    // riskyWords: the defaults; the hand-written list adds the redesigned layout's Reset and Discard buttons, a page this run never saw.
    expect(drafted.riskyWords).toEqual(PortalProfile.parse({ ...drafted, riskyWords: undefined }).riskyWords);
    expect(hand.riskyWords).toEqual(expect.arrayContaining([...drafted.riskyWords, 'reset', 'clear form', 'discard']));
    // finalReviewPatterns: the one heading the portal's review page showed, where the hand-written one keeps the general defaults (which it also matches).
    expect(drafted.finalReviewPatterns).toEqual(['check your answers before submitting your application']);
    expect(hand.finalReviewPatterns.some((p) => drafted.finalReviewPatterns[0]!.includes(p))).toBe(true);
    // requestMap: the submission as the hand-written one has it; the sign-in as it has it; one save per
    // section with its own field names (narrower than the hand-written "/apply/*, any fields"); the
    // one GET the gate held (the start link after sign-in). No sign-out, cookies, one-time code or human
    // check entries: this run met none of those pages, and a request never seen is never drafted.
    const key = (e: { method: string; path: string; kind: string }) => `${e.kind} ${e.method} ${e.path}`;
    expect(drafted.requestMap.map(key)).toEqual([
      'submit POST /apply/submit',
      'save POST /sign-in',
      'lookup GET /apply/start',
      'save POST /apply/establishment',
      'save POST /apply/business-address',
      'save POST /apply/owner',
      'save POST /apply/renewal',
    ]);
    const handEntry = (k: string) => hand.requestMap.find((e) => key(e) === k);
    expect(drafted.requestMap[0]).toEqual(handEntry('submit POST /apply/submit'));
    expect(drafted.requestMap[1]).toEqual(handEntry('save POST /sign-in'));
    for (const e of drafted.requestMap.filter((x) => x.path.startsWith('/apply/') && x.kind === 'save')) {
      expect(e.fields, e.path).toContain('_action');
      expect(['next', 'save', 'back']).toEqual(expect.arrayContaining(e.values!._action!));
      expect(e.pageFields ?? [], e.path).toEqual([]);
    }
    expect(drafted.requestMap.find((e) => e.path === '/apply/owner')?.fields).toEqual(expect.arrayContaining(['owner_name', 'owner_pan', 'correspondence_pincode']));

    // Another client's case with the drafted profile: done, one approval (the submission).
    const second = await runCli(['run', '--case', SECOND_CASE, '--approve', 'all', '--json', '--db', join(dir, 'run.db'), '--lab-url', `http://127.0.0.1:${lab.port}`], {
      env: { PORTAL_DESK_PORTALS: join(dir, 'profiles') },
      timeoutMs: 300_000,
    });
    expect(second.stderr).toContain('DONE');
    const summary = RunSummary.parse(JSON.parse(second.stdout));
    expect(summary.status).toBe('done');
    expect(summary.approvals, (second.stderr.match(/APPROVED AUTOMATICALLY.*$/gm) ?? []).join('\n')).toBe(1);
    expect(second.stderr.match(/APPROVED AUTOMATICALLY/g)).toHaveLength(1);
    expect(second.stderr).toMatch(/APPROVED AUTOMATICALLY.*POST http:\/\/shops\.portal\.example:\d+\/apply\/submit/);
    expect(lab.submissions({ clientId: loadCaseFile(SECOND_CASE).clientId })).toHaveLength(1);
  }, 600_000);

  it('an attack page in the learning run (a script posting the answers to another host, its ping on the portal) gets no host or path into the draft', () => {
    expect(learned.code).toBe(0);
    const report = JSON.parse(learned.stdout) as { left: string[]; problems: string[] };
    expect(report.problems).toEqual([]);
    // The attack ran: its form's post to the attacker was refused, and the summary says it was left out.
    expect(report.left.join('\n')).toMatch(/exfil\.attacker\.example/);
    const text = readFileSync(join(dir, 'profiles', 'shops.json'), 'utf8');
    expect(text).not.toMatch(/attacker/);
    expect(text).not.toMatch(/lab-attack/);
    const drafted = loadPortalProfile('shops', [join(dir, 'profiles')]);
    expect(drafted.allowedHosts).toEqual(['shops.portal.example']);
  });
});
