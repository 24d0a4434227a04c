import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCaseFile } from '../../src/agent/case/case-files';
import { startLab, type Lab } from '../../lab';
import type { CaseFile } from '../../src/shared/case-file';
import type { StepRecord } from '../../src/shared/run';
import { openPgStore, openStore, routesOf, type Store } from '../../src/store';
import { REPO, runCli } from '../support/cli';
import { postgresBin, sharedPostgres } from '../support/postgres';
import { clientValues, portalWords } from './support';

/**
 * Every way a run starts follows and learns routes the same way (`routesFor`): `portal-desk batch`
 * on a desk's SQLite file and `portal-desk worker` on the office's PostgreSQL, each as a real
 * process against a lab this test runs. Two shops cases one after the other (one at a time): the
 * first asks the planner on every page and learns the route, the second follows it and asks the
 * planner nothing. `batch --no-route` asks the planner on every page and leaves the route as it was.
 */

const SHOPS = { portal: 'shops', task: 'shop-registration-renewal' };
const POWER = { portal: 'power', task: 'electricity-name-change' };
const caseOf = (file: string): CaseFile => loadCaseFile(join(REPO, 'resources/cases', file));

let lab: Lab;
beforeAll(async () => {
  lab = await startLab();
});
afterAll(async () => {
  await lab?.stop();
});

/** Per run of the store, oldest first: its client and where its turns came from. */
async function sources(store: Store): Promise<Array<{ id: string; clientId: string; status: string; steps: number; planner: number; route: number; submissions: number }>> {
  const runs = (await store.listRuns({ limit: 100 })).sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  return Promise.all(
    runs.map(async (run) => {
      const steps: StepRecord[] = await store.listSteps(run.id);
      return {
        id: run.id,
        clientId: run.clientId,
        status: run.status,
        steps: steps.length,
        planner: steps.filter((s) => s.source === 'planner').length,
        route: steps.filter((s) => s.source === 'route').length,
        submissions: lab.submissions({ clientId: run.clientId }).length,
      };
    }),
  );
}

function caseFolder(files: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'pd-route-roots-'));
  files.forEach((file, i) => writeFileSync(join(dir, `${i + 1}-${file}`), JSON.stringify(caseOf(file))));
  return dir;
}

describe('routes in every way a run starts', () => {
  it('portal-desk batch: the second case follows the route the first learned (0 planner pages); --no-route asks the planner on every page and leaves the route', { timeout: 400_000 }, async () => {
    const dir = caseFolder(['shops-renewal-anand-bakery.json', 'shops-renewal-meera-kulkarni.json']);
    const db = join(dir, 'runs.sqlite');
    const labUrl = `http://127.0.0.1:${lab.port}`;
    const batch = await runCli(['batch', dir, '--concurrency', '1', '--approve', 'all', '--db', db, '--lab-url', labUrl], { timeoutMs: 300_000 });
    expect(batch.code, batch.stderr.slice(-3000)).toBe(0);

    const store = openStore(db);
    const routes = routesOf(store);
    try {
      const [learn, follow] = await sources(store);
      expect(learn).toMatchObject({ clientId: 'anand-bakery', status: 'done', route: 0, submissions: 1 });
      expect(learn!.planner).toBeGreaterThan(4);
      const route = (await routes.getRoute(SHOPS.portal, SHOPS.task))!;
      expect(route).toMatchObject({ learnedFrom: learn!.id, version: 1, status: 'active' });
      expect(follow).toMatchObject({ clientId: 'meera-kulkarni', status: 'done', planner: 0, route: route.steps.length, submissions: 1 });

      // --no-route: a third client, every page to the planner (no route follower: its steps name no source), the route untouched.
      const third = caseFolder(['shops-renewal-srinivas-iyer.json']);
      const off = await runCli(['batch', third, '--approve', 'all', '--db', db, '--lab-url', labUrl, '--no-route'], { timeoutMs: 300_000 });
      expect(off.code, off.stderr.slice(-3000)).toBe(0);
      const last = (await sources(store)).at(-1)!;
      expect(last).toMatchObject({ clientId: 'srinivas-iyer', status: 'done', route: 0, submissions: 1 });
      expect(last.steps).toBeGreaterThanOrEqual(learn!.planner);
      expect(await routes.getRoute(SHOPS.portal, SHOPS.task)).toEqual(route);
    } finally {
      routes.close();
      store.close();
    }
  });

  it.skipIf(!postgresBin())('portal-desk worker on the office store: of two cases run one at a time, the second follows the route the first learned (0 planner pages)', { timeout: 400_000 }, async () => {
    const cluster = (await sharedPostgres())!;
    const url = await cluster.createDatabase('routes');
    const env = { PORTAL_DESK_DATABASE_URL: url };
    const dir = caseFolder(['power-name-change-deshpande.json', 'power-name-change-fernandes.json']);
    const queued = await runCli(['enqueue', dir], { env });
    expect(queued.code, queued.stderr).toBe(0);
    const desk = await runCli(['worker', '--approve', 'all', '--slots', '1', '--lab-url', `http://127.0.0.1:${lab.port}`, '--heartbeat', '1', '--stale', '4', '--drain', '3'], { env, timeoutMs: 300_000 });
    expect(desk.code, desk.stderr.slice(-3000)).toBe(0);

    const store = await openPgStore(url, { readOnly: true });
    try {
      const runs = await sources(store);
      expect(runs.map((r) => [r.status, r.submissions])).toEqual([['done', 1], ['done', 1]]);
      const [learn, follow] = runs;
      expect(learn!.planner).toBeGreaterThan(4);
      expect(learn!.route).toBe(0);
      const route = (await store.routeStore().getRoute(POWER.portal, POWER.task))!;
      expect(route.learnedFrom).toBe(learn!.id);
      expect(follow).toMatchObject({ planner: 0, route: route.steps.length });
      expect(desk.stderr).toMatch(/route: following v1/);
      // The route holds no value of either client (the power pair of route-runs.test.ts, checked here).
      const json = JSON.stringify(await store.routeStore().getRoute(POWER.portal, POWER.task)).toLowerCase();
      for (const [run, file] of [[learn!, 'power-name-change-deshpande.json'], [follow!, 'power-name-change-fernandes.json']] as const) {
        const values = clientValues(caseOf(file), portalWords(await store.listSteps(run.id)));
        expect(values.length, file).toBeGreaterThan(8);
        for (const value of values) expect(json, `route holds "${value}" of ${file}`).not.toContain(value);
      }
    } finally {
      await store.close();
    }
  });
});
