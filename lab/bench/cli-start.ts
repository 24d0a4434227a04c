import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { median, round } from './stats';

/**
 * What `portal-desk --help` costs in CPU next to a plain `node -e 0`, run side by side: each trial
 * starts both (and the CLI from its sources through tsx, for reference) a few times in turn and
 * divides the CPU the children used, read from /proc (cutime + cstime of reaped children, so the
 * bench's own work is not counted). The CLI is the built one (out/cli, `npm run build:cli`), as an
 * installed app runs it; null where out/cli was not built or /proc is not there.
 */

const ROOT = resolve(__dirname, '../..');
const BIN = resolve(ROOT, 'bin/portal-desk.js');
const BUILT = resolve(ROOT, 'out/cli/main.mjs');

export interface CliStart {
  /** Median over trials of CPU(--help, built) / CPU(node -e 0). */
  ratio: number;
  /** The same for the sources run through tsx (what the CLI cost before it was built). */
  sourceRatio: number;
  /** Median CPU seconds of one start. */
  nodeSeconds: number;
  builtSeconds: number;
  sourceSeconds: number;
  trials: number;
  startsPerTrial: number;
}

function childSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / 100;
}

function cpuOf(args: string[], env: NodeJS.ProcessEnv, starts: number): number {
  const before = childSeconds();
  for (let i = 0; i < starts; i++) {
    const run = spawnSync(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    if (run.status !== 0) throw new Error(`cli start: \`node ${args.join(' ')}\` exited ${run.status}: ${run.stderr.toString().trim().slice(0, 300)}`);
  }
  return (childSeconds() - before) / starts;
}

export function measureCliStart(plan: { trials: number; starts: number }): CliStart | null {
  if (!existsSync('/proc/self/stat') || !existsSync(BUILT)) return null;
  const node: number[] = [];
  const built: number[] = [];
  const source: number[] = [];
  for (let t = 0; t < plan.trials; t++) {
    node.push(cpuOf(['-e', '0'], process.env, plan.starts));
    built.push(cpuOf([BIN, '--help'], { ...process.env, PORTAL_DESK_CLI: 'built' }, plan.starts));
    source.push(cpuOf([BIN, '--help'], { ...process.env, PORTAL_DESK_CLI: 'source' }, Math.max(1, Math.ceil(plan.starts / 4))));
  }
  const ratios = (xs: number[]) => median(xs.map((x, i) => x / Math.max(node[i]!, 0.001)));
  return {
    ratio: round(ratios(built)),
    sourceRatio: round(ratios(source), 1),
    nodeSeconds: round(median(node), 3),
    builtSeconds: round(median(built), 3),
    sourceSeconds: round(median(source), 3),
    trials: plan.trials,
    startsPerTrial: plan.starts,
  };
}
