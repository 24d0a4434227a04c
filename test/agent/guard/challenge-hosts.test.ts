import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPTCHA_HOST, bindLabProfile } from '../../../lab';
import { LabCredentials } from '../../../lab/demo/lab-portals';
import { loadPortalProfile } from '../../../src/agent/case/portal-profiles';
import type { PlanInput, PlanResult, Planner, CaseView } from '../../../src/agent/decide/planner';
import { RulesPlanner } from '../../../src/agent/decide/rules/rules-planner';
import { challengeHostsOf } from '../../../src/agent/guard/challenge-hosts';
import { ClerkDesk } from '../../../src/console/clerk-desk';
import { playClerkInput } from '../../../src/console/take-over-input';
import type { ClerkInputEvent } from '../../../src/shared/console-api';
import { executeRun } from '../../../src/service/run-service';
import { REPO } from '../../support/cli';
import { EngineBench, RecordingApprovals, ScriptedInputs } from '../../support/engine';

/** Pictures of the page before and during the take-over, for a person to look at. */
const ARTIFACTS = join(REPO, 'test-artifacts/challenge-hosts');

/**
 * A portal profile's challenge hosts (the lab portals list the lab's reCAPTCHA-like host,
 * www.google.example) open only while the clerk holds the run's portal. In real Chromium, through
 * a real run against the lab's "Verify you are human" page: before the take-over the CAPTCHA
 * frame is refused (it does not load) and the portal page's own requests to that host, carrying
 * case data, land nothing; once the clerk takes the portal the frame is loaded again and they tick
 * it through the live view's forwarded input (its own post reaches its host), while the page's
 * post there is still refused; after the hand-back the host is refused again.
 */

const CLIENT = 'srinivas-iyer';
const CASE_DATA = 'pan=AAAPI1234C&name=Srinivas+Iyer';

/** The rules planner until the clerk hands back; then it waits for the test's checks and ends the run. */
class UntilHandBack implements Planner {
  readonly id = 'rules-until-hand-back';
  readonly description = 'test planner: the rules planner, then ends the run after the hand-back';
  handedBack = false;
  checked!: Promise<void>;
  constructor(private readonly inner: Planner) {}
  start(view: CaseView): void | Promise<void> {
    return this.inner.start(view);
  }
  async decide(input: PlanInput): Promise<PlanResult> {
    if (!this.handedBack) return this.inner.decide(input);
    await this.checked;
    return { turn: { reasoning: 'the test ends here', actions: [{ type: 'fail', reason: 'the test ends here' }] }, call: null };
  }
}

/** What the portal page's own script sends to the challenge host: a post and a GET carrying case data, and a beacon. */
async function pageSends(page: Page, origin: string): Promise<string[]> {
  return page.evaluate(
    async ({ origin, data }) => {
      // no-cors: an answer of any kind resolves (opaque), and only a network refusal rejects.
      const tries = [fetch(`${origin}/recaptcha/api2/userverify`, { method: 'POST', body: data, mode: 'no-cors' }), fetch(`${origin}/collect?${data}`, { mode: 'no-cors' })];
      navigator.sendBeacon(`${origin}/beacon`, data);
      return Promise.all(tries.map((t) => t.then(() => 'answered', () => 'refused')));
    },
    { origin, data: CASE_DATA },
  );
}

function captchaFrame(page: Page): Frame | undefined {
  return page.frames().find((f) => f !== page.mainFrame() && f.parentFrame() === page.mainFrame());
}

/** A click where an element shows, as the fractions of the picture the console's live view sends. */
async function clickOn(page: Page, box: { x: number; y: number; width: number; height: number }): Promise<ClerkInputEvent[]> {
  const size = page.viewportSize()!;
  const point = { x: (box.x + box.width / 2) / size.width, y: (box.y + box.height / 2) / size.height };
  return [
    { type: 'mouse', action: 'down', button: 'left', ...point },
    { type: 'mouse', action: 'up', button: 'left', ...point },
  ];
}

let bench: EngineBench;
beforeAll(async () => {
  bench = await new EngineBench().start();
});
afterAll(async () => {
  await bench?.stop();
});

describe('challenge hosts', { retry: 0 }, () => {
  it('are refused before the take-over, open while the clerk holds the portal (the CAPTCHA loads and is ticked by hand), refused again after', async () => {
    const lab = bench.lab;
    lab.configure(CLIENT, { captcha: 'form' });
    const origin = lab.originOf(CAPTCHA_HOST);
    const onChallengeHost = () => lab.requestLog().filter((r) => r.host === CAPTCHA_HOST);
    const profile = bindLabProfile(loadPortalProfile('shops'), lab.port);
    expect(profile.challengeHosts).toEqual([`${CAPTCHA_HOST}:${lab.port}`]);
    const planner = new UntilHandBack(new RulesPlanner(profile));
    let release!: () => void;
    planner.checked = new Promise((resolve) => (release = resolve));
    const seen: Record<string, unknown> = {};
    let page: Page | undefined;
    let work: Promise<void> | undefined;

    const clerkWorks = async (runId: string): Promise<void> => {
      const p = page!;
      const hosts = challengeHostsOf(p.context())!;
      try {
        // Before the take-over: the frame is refused, and the page's own requests there land nothing.
        expect(p.url()).toMatch(/\/human-check/);
        expect(hosts.isOpen).toBe(false);
        seen.frameBefore = await captchaFrame(p)!.locator('#anchor').count();
        seen.pageBefore = await pageSends(p, origin);
        await p.waitForTimeout(500);
        seen.landedBefore = onChallengeHost().length;
        mkdirSync(ARTIFACTS, { recursive: true });
        await p.screenshot({ path: join(ARTIFACTS, 'before-take-over.png') });

        desk.startTakeOver(runId, null);
        // The clerk holds it: the frame is loaded again and shows the widget.
        await expect.poll(() => captchaFrame(p)?.locator('#anchor').count() ?? 0, { timeout: 20_000 }).toBe(1);
        seen.openDuring = hosts.isOpen;
        // The portal page still cannot post there (only the challenge's own frame may), nor beacon.
        seen.pageDuring = await pageSends(p, origin);
        // The clerk ticks "I'm not a robot" through the live view's forwarded input.
        const box = (await p.frameLocator('iframe[title="reCAPTCHA"]').locator('#anchor').boundingBox())!;
        await playClerkInput(p, await clickOn(p, box), (controls) => desk.noteGesture(runId, controls));
        await expect.poll(() => captchaFrame(p)!.locator('#anchor').getAttribute('aria-checked'), { timeout: 10_000 }).toBe('mixed');
        await expect.poll(() => onChallengeHost().some((r) => r.method === 'POST' && r.path === '/recaptcha/api2/userverify'), { timeout: 10_000 }).toBe(true);
        await p.screenshot({ path: join(ARTIFACTS, 'during-take-over-ticked.png') });
        await p.waitForTimeout(500);
        seen.landedDuring = onChallengeHost().map((r) => `${r.method} ${r.path}`);

        // (The lab's stand-in for the picture puzzle.) The clerk presses Continue in the portal, then hands back.
        lab.solveCaptcha(CLIENT);
        await playClerkInput(p, await clickOn(p, (await p.getByRole('button', { name: 'Continue' }).boundingBox())!), (controls) => desk.noteGesture(runId, controls));
        await expect.poll(() => p.url(), { timeout: 20_000 }).not.toMatch(/\/human-check/);
        planner.handedBack = true;
        desk.handBack(runId, 'hand_back', 'ticked it');
        await expect.poll(() => hosts.isOpen, { timeout: 10_000 }).toBe(false);

        // After the hand-back: a frame to the widget does not load, and the page's requests land nothing.
        const landed = onChallengeHost().length;
        await p.evaluate((src) => {
          const frame = document.createElement('iframe');
          frame.src = src;
          document.body.append(frame);
        }, `${origin}/recaptcha/api2/anchor?k=again`);
        seen.pageAfter = await pageSends(p, origin);
        await p.waitForTimeout(1_000);
        seen.frameAfter = await Promise.all(p.frames().filter((f) => f !== p.mainFrame()).map((f) => f.locator('#anchor').count()));
        seen.landedAfter = onChallengeHost().length - landed;
      } finally {
        release();
      }
    };

    const desk: ClerkDesk = new ClerkDesk('clerk:test', (id) => {
      const offered = desk.pendingTakeOver(id);
      if (work || !offered || offered.state !== 'offered' || !page) return;
      work = clerkWorks(id);
    });
    const store = bench.store();
    let runId = '';
    const result = await executeRun(
      { store, browser: bench.browser, approvals: new RecordingApprovals('deny'), inputs: new ScriptedInputs(() => null), credentials: new LabCredentials(), takeOvers: desk },
      {
        caseFile: bench.caseFile('shops-renewal-srinivas-iyer.json'),
        profile,
        planner: 'rules',
        plannerInstance: planner,
        approveMode: 'ask',
        limits: { maxSteps: 20, timeLimitMs: 120_000 },
        onStart: (id) => (runId = id),
        onPage: (p) => void (page = p),
      },
    );
    expect(work, `the run ended (${result.status}: ${result.reason}) before a take-over was offered`).toBeDefined();
    await work;

    expect(seen.frameBefore).toBe(0);
    expect(seen.pageBefore).toEqual(['refused', 'refused']);
    expect(seen.landedBefore).toBe(0);
    expect(seen.openDuring).toBe(true);
    expect(seen.pageDuring).toEqual(['refused', 'answered']);
    // What reached the challenge host while the clerk held the portal: the widget, its own post, and the page's plain read.
    expect(seen.landedDuring).toEqual(expect.arrayContaining(['GET /recaptcha/api2/anchor', 'POST /recaptcha/api2/userverify', 'GET /collect']));
    expect((seen.landedDuring as string[]).filter((r) => r.startsWith('POST'))).toEqual(['POST /recaptcha/api2/userverify']);
    expect(seen.pageAfter).toEqual(['refused', 'refused']);
    expect(seen.frameAfter).toEqual([0]);
    expect(seen.landedAfter).toBe(0);

    // The step log says when the hosts opened and closed, and the gate's refusal of the page's post.
    const events = (await store.listSteps(runId)).flatMap((s) => s.events);
    const lines = events.filter((e) => e.type === 'challenge_hosts').map((e) => e.message);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^Opened the challenge hosts \\(${CAPTCHA_HOST}:${lab.port}\\) while the clerk holds the portal; reloaded 1 challenge frame$`));
    expect(lines[1]).toMatch(/^Closed the challenge hosts .*they are refused again$/);
    expect(events.some((e) => e.type === 'request_forbidden' && /challenge host/.test(e.message))).toBe(true);
  }, 180_000);
});
