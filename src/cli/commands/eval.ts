import { cpus } from 'node:os';
import { SUITES } from '../../../lab/eval/suites';
import { parseCommandArgs, positiveInt, shownArg } from '../args';
import { EXIT, UsageError } from '../cli-error';

const HELP = `portal-desk eval --suite NAME [--model NAME] [--full | --quick] [--https] [--concurrency N] [--json]

Runs an evaluation suite against the portal lab and prints a verdict per case and a summary.
Suites: ${Object.keys(SUITES).join(', ') || '(none registered)'}
--full runs the whole matrix; --quick a covering sample (every kind of case on every variant, fewer
runs: what npm test runs; suites without one run their CI subset). --https (lab and routes suites) serves
the lab portals over https with a certificate authority made at lab start, which the browser trusts. Exit code 0 when the suite's bar is met, 1 otherwise, 2 on bad options. A case file that cannot be
used is reported in one line and the suite goes on without it.`;

export async function evalCommand(args: string[]): Promise<number> {
  const { values } = parseCommandArgs(args, {
    suite: { type: 'string' },
    model: { type: 'string' },
    full: { type: 'boolean' },
    quick: { type: 'boolean' },
    https: { type: 'boolean' },
    concurrency: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    console.log(HELP);
    return EXIT.ok;
  }
  if (values.full && values.quick) throw new UsageError('--full and --quick ask for opposite ends of the matrix: give one');
  const load = values.suite && Object.hasOwn(SUITES, values.suite) ? SUITES[values.suite] : undefined;
  if (!load) throw new UsageError(`--suite must be one of ${Object.keys(SUITES).join(', ') || '(none registered)'}${values.suite ? ` (got "${shownArg(values.suite)}")` : ''}`);
  if (values.https && values.suite !== 'lab' && values.suite !== 'routes') throw new UsageError(`--https is for the lab and routes suites only (got --suite ${shownArg(values.suite ?? '')})`);
  const suite = await load();
  const model = values.model ?? suite.models[0]!;
  if (!suite.models.includes(model)) throw new UsageError(`suite ${suite.name} runs with --model ${suite.models.join(' or ')} (got "${shownArg(model)}")`);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const report = await suite.run({
    model,
    full: values.full ?? false,
    quick: values.quick ?? false,
    https: values.https ?? false,
    concurrency: positiveInt('concurrency', values.concurrency, Math.max(1, Math.min(2, cpus().length)), 16),
    log,
  });
  for (const r of report.results) log(`${r.pass ? 'PASS' : 'FAIL'} ${r.id}: ${r.detail}`);
  log(`${report.suite}: ${Object.entries(report.summary).map(([k, v]) => `${k}=${v}`).join(' ')}`);
  if (values.json) console.log(JSON.stringify(report, null, 2));
  return report.ok ? EXIT.ok : EXIT.notDone;
}
