import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLab, type Lab } from '../../lab';
import { OfficeQueue } from '../../src/service/office-queue';
import { openPgStore } from '../../src/store';
import { runCli } from '../support/cli';
import { postgresBin, sharedPostgres, type PgCluster } from '../support/postgres';
import { FULL_SWEEPS } from '../support/tiers';
import { killDesks, labCaseFolder, sleep, startDesk } from './support';

/**
 * `enqueue --monthly DAY --at HH:MM` keeps a pg-boss schedule; a desk's queue (supervising, as a
 * worker's does) fires it through pg-boss's own cron clock, which puts the case on the office queue
 * with the month in its case id, and a worker runs it to done.
 *
 * How pg-boss 10 decides that a schedule fires: every `cronMonitorIntervalSeconds` one desk of
 * the office wins `pgboss.version.cron_on`, takes each schedule's last cron time before *now*
 * (cron-parser, in the schedule's time zone, from the Node clock) and sends it when that time is
 * less than 60 s behind the database's clock (the Node clock plus the skew measured at start);
 * the send is a singleton per schedule for the 60 s slot of the database clock. So the test sets
 * this process's clock (only Date, still running) to the fire minute of a month to come, after
 * the queue has measured its skew, shifted by whole minutes from the real clock so that the fire
 * window lies in one slot: the real cron code then fires, as it would on that day.
 */
describe.skipIf(!postgresBin())('monthly schedules on the office queue', () => {
  let cluster: PgCluster;
  let lab: Lab;
  let queue: OfficeQueue | undefined;
  beforeAll(async () => {
    cluster = (await sharedPostgres())!;
    lab = await startLab();
  });
  afterAll(async () => {
    await killDesks();
    vi.useRealTimers();
    await queue?.close();
    await lab?.stop();
    cluster?.stop();
  });

  it('a case scheduled for day D at HH:MM is queued on day D of each month, once, as that month’s case, and runs', { timeout: 300_000 }, async () => {
    const url = await cluster.createDatabase('monthly');
    const db = new URL(url).pathname.slice(1);
    const env = { PORTAL_DESK_DATABASE_URL: url };
    const { dir, caseIds, clients } = labCaseFolder(1);
    const [caseId, client] = [caseIds[0]!, clients[0]!];
    // A day that is not today (the real clock must not fire it while the queue starts).
    const day = (new Date().getUTCDate() % 28) + 1;
    const dd = String(day).padStart(2, '0');

    const scheduled = await runCli(['enqueue', dir, '--monthly', String(day), '--at', '06:30', '--json'], { env });
    expect(scheduled.code, scheduled.stderr).toBe(0);
    const [entry] = (JSON.parse(scheduled.stdout) as { scheduled: { caseId: string; schedule: string; cron: string }[] }).scheduled;
    expect(entry).toMatchObject({ caseId, cron: `30 6 ${day} * *` });
    // Scheduled again: the one schedule is replaced, not doubled.
    expect((await runCli(['enqueue', dir, '--monthly', String(day), '--at', '06:30'], { env })).code).toBe(0);
    const schedules = await cluster.query<{ name: string; cron: string; timezone: string; data: { caseFile: { caseId: string } } }>(db, 'SELECT name, cron, timezone, data FROM pgboss.schedule');
    expect(schedules.map((s) => [s.name, s.cron, s.timezone, s.data.caseFile.caseId])).toEqual([[entry!.schedule, `30 6 ${day} * *`, 'UTC', caseId]]);
    // Nothing is on the case queue until it fires.
    const caseJobs = () => cluster.query<{ case_id: string; source: string }>(db, "SELECT data->'caseFile'->>'caseId' AS case_id, data->>'source' AS source FROM pgboss.job WHERE name = 'portal-desk-cases' ORDER BY created_on");
    expect(await caseJobs()).toEqual([]);

    // A desk's queue, supervising as a worker's does, its skew measured on the real clock.
    queue = await OfficeQueue.open(url, { supervise: true, scheduleCheckSeconds: 1 });
    const cronChecks = async () => (await cluster.query<{ cron_on: Date | null }>(db, 'SELECT cron_on FROM pgboss.version'))[0]?.cron_on?.getTime() ?? 0;
    /** The real minute (ms since the epoch / 60 000) of the last fire window. */
    let lastWindow = 0;
    /**
     * Sets this process's clock to `minute` (UTC) plus the real clock's second within its minute, and
     * lets it run. With `window`, first waits for a real minute that has at least 20 s left (the fire
     * window is the rest of it: it must hold the fire and the quiet after it) and is later than the
     * last window's: pg-boss sends a schedule once per minute of the database's (real) clock, so a
     * second fire in the same real minute would be dropped as a duplicate of the first.
     */
    const clockAt = async (minute: string, window = false) => {
      vi.useRealTimers();
      while (window && (Date.now() % 60_000 > 40_000 || Math.floor(Date.now() / 60_000) <= lastWindow)) await sleep(60_000 - (Date.now() % 60_000) + 500);
      if (window) lastWindow = Math.floor(Date.now() / 60_000);
      vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
      vi.setSystemTime(Date.parse(minute) + (Date.now() % 60_000));
    };
    /** Waits until pg-boss's cron clock has checked the schedules twice more. */
    const twoCronChecks = async (): Promise<void> => {
      const before = await cronChecks();
      for (let i = 0; i < 100 && (await cronChecks()) <= before; i++) await sleep(200);
      const once = await cronChecks();
      for (let i = 0; i < 100 && (await cronChecks()) <= once; i++) await sleep(200);
      expect(await cronChecks()).toBeGreaterThan(once);
    };
    const fired = async (): Promise<number> => {
      for (let i = 0; i < 60; i++) {
        const moved = await queue!.forwardScheduled();
        if (moved > 0) return moved;
        await sleep(500);
      }
      return 0;
    };

    // The day before, at that time: two cron checks later, nothing was sent.
    await clockAt(`2027-01-${String(day === 1 ? 28 : day - 1).padStart(2, '0')}T06:30:00Z`);
    await twoCronChecks();
    expect(await queue.forwardScheduled()).toBe(0);
    expect((await cluster.query(db, "SELECT 1 FROM pgboss.job WHERE name <> 'portal-desk-cases'")).length).toBe(0);

    // Day D, 06:30: pg-boss's cron fires it, and the desk moves it onto the case queue as January's case.
    await clockAt(`2027-01-${dd}T06:30:00Z`, true);
    expect(await fired()).toBe(1);
    expect(await caseJobs()).toEqual([{ case_id: `${caseId}-2027-01`, source: `${entry!.schedule} (2027-01)` }]);
    // The rest of the fire window sends nothing more: two more cron checks, and nothing to forward.
    await twoCronChecks();
    expect(await queue.forwardScheduled()).toBe(0);
    vi.useRealTimers();

    // A worker runs January's case to done: a case of its own, submitted once.
    const desk = startDesk(['--approve', 'all', '--lab-url', `http://127.0.0.1:${lab.port}`, '--heartbeat', '1', '--drain', '1'], env);
    const end = await desk.exited;
    expect(end.code, desk.stderr().slice(-3000)).toBe(0);
    expect(lab.submissions({ clientId: client })).toHaveLength(1);
    const store = await openPgStore(url, { readOnly: true });
    try {
      const runs = await store.listRuns();
      expect(runs.map((r) => [r.caseId, r.status])).toEqual([[`${caseId}-2027-01`, 'done']]);
    } finally {
      await store.close();
    }

    // February, the same day and time: February's case. Full sweeps only: pg-boss sends a schedule once per minute of the
    // database's real clock, so a second fire waits for the next real minute (30 s on average). Per commit, the stored
    // cron above says day D of every month, and January's case id shows the month is the fire's, not the schedule's.
    if (!FULL_SWEEPS) return;
    await clockAt(`2027-02-${dd}T06:30:00Z`, true);
    expect(await fired()).toBe(1);
    expect((await caseJobs()).map((j) => j.case_id)).toEqual([`${caseId}-2027-01`, `${caseId}-2027-02`]);
    vi.useRealTimers();
  });
});
