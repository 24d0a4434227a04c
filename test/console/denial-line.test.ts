import { describe, expect, it } from 'vitest';
import type { RunView } from '../../src/shared/console-api';
import { reasonLine } from '../../src/renderer/src/status';

/** A failed run's view with the reason the engine writes for a denial. */
function denied(reason: string): RunView {
  return {
    run: { status: 'failed', reason } as RunView['run'],
    pendingApproval: null,
    pendingInput: null,
    pendingTakeOver: null,
    approvalDetail: null,
    phase: null,
  };
}

/** The denial line on the Runs list and the run's header (issue 28: "Your decision: not to root: click button …"). */
describe('the denial line', () => {
  it('reads past a clerk name with a colon in it', () => {
    expect(reasonLine(denied('Denied by clerk:root: click button "Submit application"'))).toBe(
      'Your decision: not to click button "Submit application". The run stopped there; start the case again when it should go on.',
    );
  });

  it('names a held request without "was not sent"', () => {
    expect(reasonLine(denied('Denied by the clerk: send POST /apply/submit on shops.portal.example:4000 was not sent'))).toMatch(
      /^Your decision: not to send POST \/apply\/submit on shops\.portal\.example:4000\. The run stopped there/,
    );
  });
});
