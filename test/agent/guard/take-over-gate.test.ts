import { describe, expect, it } from 'vitest';
import { CommitGate, type GateRecord } from '../../../src/agent/guard/commit-gate';
import { ClerkGestures } from '../../../src/shared/clerk-gestures';
import type { CarriedValue } from '../../../src/shared/control-submission';
import { PortalProfile } from '../../../src/shared/portal-profile';
import { WATER_BOARD } from './fixtures';

/**
 * The commit gate while the clerk works the portal by hand (a take-over): the clerk is the
 * approver, so what their own clicks submit goes without asking them again, recorded as theirs;
 * forbidden paths stay refused, and a second submission is still checked first. What is "their
 * own" is tied to a gesture aimed at that address (test/attacks/commit-gate/take-over.test.ts
 * tries it in Chromium against pages that post on their own).
 */
const profile = PortalProfile.parse({
  ...WATER_BOARD,
  submitPaths: ['/apply/submit'],
  forbiddenPaths: ['/my-account/close'],
});
const at = (path: string) => `https://connect.water.example${path}`;

function gateWithJudge(sendSubmission = true): { gate: CommitGate; asked: string[]; records: GateRecord[] } {
  const gate = new CommitGate(profile);
  const asked: string[] = [];
  const records: GateRecord[] = [];
  gate.setJudge({
    approve: async (held) => {
      asked.push(held.url);
      return { decision: 'deny', by: 'clerk:test' };
    },
    origin: () => ({ origin: 'not_from_case' }),
    beforeSubmission: async () => (sendSubmission ? { send: true } : { send: false, reason: 'a submission may already have gone through' }),
  });
  gate.onRecord((r) => records.push(r));
  return { gate, asked, records };
}

describe('CommitGate during a take-over', () => {
  it('sends the clerk’s own submission without asking, recorded as approved by them by hand, and counts it', async () => {
    const { gate, asked, records } = gateWithJudge();
    const admitted = await gate.during({ step: 5, description: 'the clerk, by hand', approved: false, byHand: () => 'clerk:asha' }, () =>
      gate.admit({ method: 'POST', url: at('/apply/submit'), postData: 'a=1', contentType: 'application/x-www-form-urlencoded' }),
    );
    expect(admitted).toEqual({ ok: true, submission: true });
    expect(asked).toEqual([]);
    expect(gate.submissionsSent).toBe(1);
    expect(records).toEqual([expect.objectContaining({ type: 'commit_approved', decision: expect.objectContaining({ by: 'clerk:asha, by hand (take-over)' }) })]);
  });

  it('still refuses a forbidden path and an unchecked second submission by hand', async () => {
    const { gate, asked, records } = gateWithJudge(false);
    const cause = { step: 5, description: 'the clerk, by hand', approved: false, byHand: () => 'clerk:asha' };
    await expect(gate.during(cause, () => gate.admit({ method: 'POST', url: at('/my-account/close'), postData: null }))).resolves.toMatchObject({ ok: false });
    await expect(gate.during(cause, () => gate.admit({ method: 'POST', url: at('/apply/submit'), postData: null }))).resolves.toMatchObject({ ok: false, reason: /already/ });
    expect(asked).toEqual([]);
    expect(gate.submissionsSent).toBe(0);
    expect(records.map((r) => r.type)).toEqual(['request_forbidden', 'commit_refused']);
  });

  it('asks as before while nobody has taken the portal yet, and for an agent’s click', async () => {
    const { gate, asked } = gateWithJudge();
    await gate.during({ step: 6, description: 'the clerk, by hand', approved: false, byHand: () => null }, () => gate.admit({ method: 'POST', url: at('/apply/submit'), postData: null }));
    await gate.during({ step: 6, description: 'click button "Submit"', approved: false }, () => gate.admit({ method: 'POST', url: at('/apply/submit'), postData: null }));
    expect(asked).toEqual([at('/apply/submit'), at('/apply/submit')]);
  });

  it('counts a request as the clerk’s only through a recent gesture aimed at its address with its values, once', async () => {
    let now = 1_000_000;
    const gestures = new ClerkGestures(() => now);
    const { gate, asked, records } = gateWithJudge();
    const cause = { step: 7, description: 'the clerk, by hand', approved: false, byHand: (url: string, carried: readonly CarriedValue[]) => (gestures.claim(url, carried) ? 'clerk:asha' : null) };
    const post = (path: string, body: string | null = null) =>
      gate.during(cause, () => gate.admit({ method: 'POST', url: at(path), postData: body, contentType: 'application/x-www-form-urlencoded', navigation: true }));
    const form = (url: string, entries: Array<{ name: string; value: string }> = []) => ({ kind: 'form' as const, url, method: 'POST', enctype: 'application/x-www-form-urlencoded', entries });
    // A click on a checkbox names no address: what the page posts then is asked about.
    gestures.note([]);
    await post('/apply/submit');
    // A click on the form's Submit names /apply/submit (a fragment is not part of the address): that one post is theirs.
    gestures.note([form(at('/apply/submit#top'))]);
    await post('/apply/submit');
    // The gesture was used: a second post to the same address is asked about.
    await post('/apply/submit');
    // A gesture older than the window answers for nothing.
    gestures.note([form(at('/apply/submit'))]);
    now += 11_000;
    await post('/apply/submit');
    // The form held Ravi Kumar when the clerk pressed Submit: a post carrying what the page put
    // there after the press is not theirs; one carrying what they pressed on is.
    gestures.note([form(at('/apply/submit'), [{ name: 'full_name', value: 'Ravi Kumar' }])]);
    await post('/apply/submit', 'full_name=Mallory');
    gestures.note([form(at('/apply/submit'), [{ name: 'full_name', value: 'Ravi Kumar' }])]);
    await post('/apply/submit', 'full_name=Ravi+Kumar&bank=999');
    gestures.note([form(at('/apply/submit'), [{ name: 'full_name', value: 'Ravi Kumar' }])]);
    await post('/apply/submit', 'full_name=Ravi+Kumar');
    expect(asked).toEqual(Array(5).fill(at('/apply/submit')));
    expect(records.filter((r) => r.type === 'commit_approved').map((r) => r.decision?.by)).toEqual(['clerk:asha, by hand (take-over)', 'clerk:asha, by hand (take-over)']);
  });
});
