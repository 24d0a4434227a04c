import { ConfigFileError } from '../agent/case/config-file-error';
import { EXIT, UsageError } from './cli-error';
import { ClientBusyError } from '../store/client-busy';

type Command = (args: string[]) => Promise<number>;

// Each command is loaded when it is asked for, so `portal-desk --help` (or `verify`) does not load the
// engine, the Anthropic SDK or playwright-core. The built CLI (out/cli) keeps these as separate chunks.
const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  console: { summary: 'open the operator console (in your browser where Electron cannot start)', load: async () => (await import('./commands/console')).consoleCommand },
  run: { summary: 'run one case file against its portal', load: async () => (await import('./commands/run')).runCommand },
  batch: { summary: 'run a queue of case files, N at a time; clerk questions one at a time; a summary table', load: async () => (await import('./commands/batch')).batchCommand },
  resume: { summary: 'continue a run whose process stopped, from what the store holds', load: async () => (await import('./commands/resume')).resumeCommand },
  worker: { summary: 'join the office queue: take cases one at a time (PORTAL_DESK_DATABASE_URL), resume those of a desk that stopped', load: async () => (await import('./commands/worker')).workerCommand },
  enqueue: { summary: "put case files on the office queue (now, or --monthly)", load: async () => (await import('./commands/enqueue')).enqueueCommand },
  waits: { summary: "what the office's runs wait for (approvals, codes), answered from any desk", load: async () => (await import('./commands/waits')).waitsCommand },
  lab: { summary: 'serve the portal lab (the demo portals) and print its URLs', load: async () => (await import('./commands/lab')).labCommand },
  eval: { summary: 'run an evaluation suite (lab, attacks, faults) and print verdicts', load: async () => (await import('./commands/eval')).evalCommand },
  verify: { summary: 'check that a recorded run (or its export file) was not edited', load: async () => (await import('./commands/verify')).verifyCommand },
  replay: { summary: 'replay a recorded run: text, JSON, an offline HTML report or a verifiable export', load: async () => (await import('./commands/replay')).replayCommand },
  bench: { summary: 'benchmark observe, tokens, store, a lab form and concurrent runs against their targets', load: async () => (await import('./commands/bench')).benchCommand },
  routes: { summary: 'learned routes: list, show or delete the path a done run took through a portal', load: async () => (await import('./commands/routes')).routesCommand },
  portals: { summary: "add a portal from one supervised run (learn); its learned request map: list what the clerk taught, remove an entry", load: async () => (await import('./commands/portals')).portalsCommand },
  purge: { summary: 'retention: drop screenshots and model payloads of runs older than an age', load: async () => (await import('./commands/purge')).purgeCommand },
  vault: { summary: 'store, list and remove portal logins (encrypted; passwords never printed)', load: async () => { const { vaultCommand } = await import('./commands/vault'); return (args) => vaultCommand(args); } },
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
  quietOnClosedPipe();
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(USAGE);
    return name ? EXIT.ok : EXIT.badInput;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`portal-desk: unknown command "${name.length > 40 ? `${name.slice(0, 39)}…` : name}"; "portal-desk --help" lists the commands`);
    return EXIT.badInput;
  }
  try {
    const run = await command.load();
    return await run(rest);
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigFileError || err instanceof ClientBusyError) {
      console.error(`portal-desk ${name}: ${err.message}`);
      return EXIT.badInput;
    }
    throw err;
  }
}

/**
 * `portal-desk verify … | head`: when the reader of stdout or stderr goes away (EPIPE), the
 * command stops quietly, as Unix tools do, instead of dying with a stack trace.
 */
function quietOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(EXIT.ok);
      throw err;
    });
  }
}
