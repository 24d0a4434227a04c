import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time, from Linux's /proc: what this process and every process it started (Chromium and its
 * renderers) used, and what the whole machine used. Together they say whether a batch was short
 * of CPU, and how much of it went to other work on a shared machine. Elsewhere than Linux both
 * read as null.
 */

/** Clock ticks per second of /proc's counters (`getconf CLK_TCK`; 100 on Linux). */
const TICKS = 100;

export interface CpuCounters {
  /** CPU seconds of this process tree (exited children count once reaped by a process of the tree). */
  tree: number;
  /** Busy and total CPU seconds of the machine, all CPUs together. */
  machineBusy: number;
  machineTotal: number;
}

export interface CpuUse {
  /** CPU seconds this process tree used. */
  seconds: number;
  /** Share of all the machine's CPU time over the interval that this process tree used. */
  ours: number;
  /** Share the rest of the machine used (other engineers' tests, the desktop, …). */
  others: number;
}

/** `also`: other process trees to count with this one (a server this process started that detached, as PostgreSQL does). */
export function readCpu(also: readonly number[] = []): CpuCounters | null {
  try {
    return { tree: treeSeconds([process.pid, ...also]), ...machineSeconds() };
  } catch {
    return null;
  }
}

export function cpuBetween(before: CpuCounters | null, after: CpuCounters | null): CpuUse | null {
  if (!before || !after) return null;
  const total = after.machineTotal - before.machineTotal;
  if (total <= 0) return null;
  const seconds = Math.max(0, after.tree - before.tree);
  const busy = after.machineBusy - before.machineBusy;
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return { seconds: round(seconds), ours: round(Math.min(1, seconds / total)), others: round(Math.max(0, (busy - seconds) / total)) };
}

function treeSeconds(roots: readonly number[]): number {
  const children = new Map<number, number[]>();
  const ticks = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // pid (comm) state ppid … utime stime cutime cstime: comm may hold spaces and parentheses.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pid = Number(name);
    const ppid = Number(f[1]);
    ticks.set(pid, Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]));
    const list = children.get(ppid) ?? [];
    list.push(pid);
    children.set(ppid, list);
  }
  let sum = 0;
  const queue = [...roots];
  const counted = new Set<number>();
  while (queue.length) {
    const pid = queue.pop()!;
    if (counted.has(pid)) continue; // a root inside another root's tree counts once
    counted.add(pid);
    sum += ticks.get(pid) ?? 0;
    queue.push(...(children.get(pid) ?? []));
  }
  return sum / TICKS;
}

function machineSeconds(): { machineBusy: number; machineTotal: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const [, ...values] = line.trim().split(/\s+/);
  // user nice system idle iowait irq softirq steal (guest time is already inside user).
  const n = values.slice(0, 8).map(Number);
  const total = n.reduce((a, b) => a + b, 0);
  const idle = (n[3] ?? 0) + (n[4] ?? 0);
  return { machineBusy: (total - idle) / TICKS, machineTotal: total / TICKS };
}
