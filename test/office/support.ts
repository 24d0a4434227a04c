import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startLab, type Lab } from '../../lab';
import { loadLabCases } from '../../lab/eval/suites/lab';
import { BIN, REPO, tempHome } from '../support/cli';
import { sharedPostgres, type PgCluster } from '../support/postgres';

/** `n` lab cases a run finishes without set-up (no register look-up failing first), written as case files to a new folder. */
export function labCaseFolder(n: number): { dir: string; caseIds: string[]; clients: string[] } {
  const plain = loadLabCases().filter((c) => Object.keys(c.setup).length === 0);
  if (plain.length < n) throw new Error(`only ${plain.length} plain lab cases, ${n} wanted`);
  // Round-robin over the three portals, so every portal's flow runs.
  const byPortal = ['shops', 'power', 'tax'].map((p) => plain.filter((c) => c.caseFile.portal === p));
  const chosen = [];
  for (let i = 0; chosen.length < n; i++) {
    const list = byPortal[i % 3]!;
    const next = list[Math.floor(i / 3)];
    if (next) chosen.push(next.caseFile);
  }
  const dir = join(tempHome(), 'cases');
  mkdirSync(dir);
  // As a clerk writes it: without the folder the loader notes it came from.
  for (const c of chosen) writeFileSync(join(dir, `${c.caseId}.json`), JSON.stringify({ ...c, folder: undefined }, null, 2));
  return { dir, caseIds: chosen.map((c) => c.caseId), clients: chosen.map((c) => c.clientId) };
}

export interface Desk {
  child: ChildProcess;
  pid: number;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL the desk and its browser (its process group): what a crash or a pulled plug does. */
  kill(): void;
}

const running = new Set<Desk>();

/**
 * SIGKILLs every desk this test process started that is still running. A test that fails while a
 * desk waits (on a clerk, on the queue) would otherwise leave it, and its browser, running after the
 * test is gone, taking CPU from every test after it.
 */
export async function killDesks(): Promise<void> {
  const left = [...running];
  for (const desk of left) desk.kill();
  await Promise.all(left.map((d) => d.exited));
}

/** A `portal-desk worker` process: one desk (killed by `killDesks` if it is still running). */
export function startDesk(args: string[], env: Record<string, string>): Desk {
  const child = spawn(process.execPath, [BIN, 'worker', ...args], {
    cwd: REPO,
    env: { ...process.env, PORTAL_DESK_HOME: tempHome(), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  const desk: Desk = {
    child,
    pid: child.pid!,
    stderr: () => err,
    exited,
    kill: () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    },
  };
  running.add(desk);
  void exited.then(() => running.delete(desk));
  return desk;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The office tests' set-up inside their `describe`: the run's shared PostgreSQL cluster and a portal
 * lab, with every desk the file started killed after it. Read `cluster` and `lab` inside a test.
 */
export function useOfficeLab(): { cluster: PgCluster; lab: Lab } {
  const office = {} as { cluster: PgCluster; lab: Lab };
  beforeAll(async () => {
    office.cluster = (await sharedPostgres())!;
    office.lab = await startLab();
  });
  afterAll(async () => {
    await killDesks();
    await office.lab?.stop();
    office.cluster?.stop();
  });
  return office;
}
