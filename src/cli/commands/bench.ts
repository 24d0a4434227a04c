import { runBench } from '../../../lab/bench/runner';
import { reportText } from '../../../lab/bench/print-report';
import { parseCommandArgs } from '../args';
import { EXIT } from '../cli-error';

const HELP = `portal-desk bench [--quick] [--json]

Measures the engine in one process, one lab and one Chromium, and prints medians, ratios and a
summary table with each target and whether it was met (see docs/benchmark.md):
observation build time vs a bare ai snapshot, observation tokens vs the ai snapshot and the raw
HTML (labelled controls kept), stale-ref detection, store write per step and a 1,000-step replay
load, a lab form end to end with the rules planner, and 1 vs 4 concurrent runs.
Takes a few minutes on 2 cores. Progress goes to stderr.

  --quick   one trial of each on fewer pages (checks the bench works; not a measurement)
  --json    print the report as JSON instead of text

Exit code 0 when the bench ran, whether or not the targets were met.`;

export async function benchCommand(args: string[]): Promise<number> {
  const { values } = parseCommandArgs(args, { quick: { type: 'boolean' }, json: { type: 'boolean' } });
  if (values.help) {
    console.log(HELP);
    return EXIT.ok;
  }
  const report = await runBench({ quick: values.quick ?? false, log: (line) => process.stderr.write(`bench: ${line}\n`) });
  console.log(values.json ? JSON.stringify(report, null, 2) : reportText(report));
  return EXIT.ok;
}
