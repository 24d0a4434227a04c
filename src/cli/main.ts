import { ConfigFileError } from '../agent/case/config-file-error';
import { EXIT, UsageError } from './cli-error';
import { batchCommand } from './commands/batch';
import { benchCommand } from './commands/bench';
import { consoleCommand } from './commands/console';
import { evalCommand } from './commands/eval';
import { labCommand } from './commands/lab';
import { purgeCommand } from './commands/purge';
import { replayCommand } from './commands/replay';
import { resumeCommand } from './commands/resume';
import { runCommand } from './commands/run';
import { vaultCommand } from './commands/vault';
import { verifyCommand } from './commands/verify';

type Command = (args: string[]) => Promise<number>;

// Static imports: the bin runs TypeScript through tsx's CommonJS hook, which does not serve dynamic import().
const COMMANDS: Record<string, { summary: string; command: Command }> = {
  console: { summary: 'open the operator console (in your browser where Electron cannot start)', command: consoleCommand },
  run: { summary: 'run one case file against its portal', command: runCommand },
  batch: { summary: 'run a queue of case files, N at a time; clerk questions one at a time; a summary table', command: batchCommand },
  resume: { summary: 'continue a run whose process stopped, from what the store holds', command: resumeCommand },
  lab: { summary: 'serve the portal lab (the demo portals) and print its URLs', command: labCommand },
  eval: { summary: 'run an evaluation suite (lab, attacks, faults) and print verdicts', command: evalCommand },
  verify: { summary: 'check that a recorded run (or its export file) was not edited', command: verifyCommand },
  replay: { summary: 'replay a recorded run: text, JSON, an offline HTML report or a verifiable export', command: replayCommand },
  bench: { summary: 'benchmark observe, tokens, store, a lab form and concurrent runs against their targets', command: benchCommand },
  purge: { summary: 'retention: drop screenshots and model payloads of runs older than an age', command: purgeCommand },
  vault: { summary: 'store, list and remove portal logins (encrypted; passwords never printed)', command: (args) => vaultCommand(args) },
};

const USAGE = `portal-desk — an AI agent fills portal forms while a clerk supervises

Usage: portal-desk <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`)
  .join('\n')}

Run "portal-desk <command> --help" for a command's options.`;

/** The headless composition root. Returns the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(USAGE);
    return name ? EXIT.ok : EXIT.badInput;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`portal-desk: unknown command "${name}"\n\n${USAGE}`);
    return EXIT.badInput;
  }
  try {
    return await command.command(rest);
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigFileError) {
      console.error(`portal-desk ${name}: ${err.message}`);
      return EXIT.badInput;
    }
    throw err;
  }
}
