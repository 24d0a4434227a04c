import { describe, expect, it } from 'vitest';
import { evalCommand } from '../../src/cli/commands/eval';
import { UsageError } from '../../src/cli/cli-error';

/** `eval`'s options are refused before any lab or browser starts. */
describe('portal-desk eval options', () => {
  it('refuses --full with --quick, and an unknown suite, as usage errors naming the problem', async () => {
    await expect(evalCommand(['--suite', 'lab', '--full', '--quick'])).rejects.toThrow(UsageError);
    await expect(evalCommand(['--suite', 'lab', '--full', '--quick'])).rejects.toThrow(/--full and --quick/);
    await expect(evalCommand(['--suite', 'labs', '--quick'])).rejects.toThrow(/--suite must be one of .*lab.*\(got "labs"\)/);
  });

  it('refuses --https for a suite other than the lab and routes suites (only their portals have an https lab)', async () => {
    await expect(evalCommand(['--suite', 'faults', '--https'])).rejects.toThrow(/--https is for the lab and routes suites only \(got --suite faults\)/);
  });
});
