import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCaseFile } from '../../src/agent/case/case-files';
import type { ConsoleService } from '../../src/console/console-service';
import { startConsoleServer, type ConsoleServer } from '../../src/console/web-server';
import { OfficeQueue } from '../../src/service/office-queue';
import type { OfficeView, RunView } from '../../src/shared/console-api';
import type { Lab } from '../../lab';
import { LabHandle } from '../../lab/demo/lab-portals';
import { postgresBin, sharedPostgres, type PgCluster } from '../support/postgres';
import { ensureRendererBuilt } from './renderer-build';
import { CASES_DIR, openConsolePage, openTestService, REPO, tempDir } from './support';

/**
 * The console as a desk of the office (issue 19), on a throw-away PostgreSQL: it joins the office
 * queue, takes a case put on it, and the run's approval of the final submit becomes an office wait
 * (a row any desk answers); the clerk answers it from the console screen in Chromium, the run
 * submits once and ends done in the office store, and a second answer is refused (first answer
 * wins). Screen at 1280×720: test-artifacts/console/office-wait.png.
 */
const ARTIFACTS = join(REPO, 'test-artifacts/console');
const CASE = 'shops-renewal-venkateswara-emporium';

describe.skipIf(!postgresBin())('the console joins the office queue and answers its waits', { retry: 0 }, () => {
  let cluster: PgCluster;
  let labHandle: LabHandle;
  let lab: Lab;
  let service: ConsoleService;
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;
  let url: string;

  beforeAll(async () => {
    ensureRendererBuilt();
    mkdirSync(ARTIFACTS, { recursive: true });
    cluster = (await sharedPostgres())!;
    url = await cluster.createDatabase('console_office');
    labHandle = new LabHandle();
    lab = await labHandle.get();
    const home = tempDir('pd-office-console-');
    ({ service } = await openTestService({ demo: labHandle, env: { PORTAL_DESK_HOME: home, PATH: process.env.PATH, PORTAL_DESK_DATABASE_URL: url, PORTAL_DESK_NAME: 'desk-console' } }));
    server = await startConsoleServer({ service });
    ({ browser, page } = await openConsolePage(server.url, { viewport: { width: 1280, height: 720 } }));
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await service?.close();
    await labHandle?.stop();
  }, 60_000);

  it('joins, runs a queued case, shows its approval as an office wait and answers it from the screen: done, submitted once', { timeout: 300_000 }, async ({ onTestFailed }) => {
    onTestFailed(async () => {
      const views = (await service.handle('listRuns', {}).catch(() => [])) as RunView[];
      console.error(`[office console] runs:\n${views.map((v) => `  ${v.run.id} ${v.run.caseId} ${v.run.status}: ${v.run.reason ?? ''}`).join('\n')}`);
      await page.screenshot({ path: join(ARTIFACTS, 'failed-office.png') }).catch(() => undefined);
    });
    const panel = page.getByRole('region', { name: 'Office queue' });
    await panel.waitFor();
    await page.getByRole('button', { name: 'Join the office queue' }).click();
    await panel.getByText('this console takes cases').waitFor();
    const office = (await service.handle('officeStatus', {})) as OfficeView;
    expect(office).toMatchObject({ configured: true, joined: true, slots: 1 });

    // Another desk (here: the test, as "portal-desk enqueue" does) puts the day's case on the office queue.
    const queue = await OfficeQueue.open(url);
    try {
      await queue.enqueue([{ source: CASE, caseFile: loadCaseFile(join(CASES_DIR, `${CASE}.json`)) }]);
    } finally {
      await queue.close();
    }

    // The console's desk takes it; its submit waits on the office database, shown in the panel.
    const wait = page.locator('.office-panel .office-wait[data-kind="approval"]');
    await wait.waitFor({ timeout: 240_000 });
    await expect.poll(() => wait.innerText()).toMatch(/Approve: .*Submit application/);
    expect(await wait.innerText()).toMatch(/desk desk-console \(this console\)/);
    expect(lab.submissions({ clientId: 'irfan-shaikh' })).toHaveLength(0);
    const waitId = (await wait.getAttribute('data-wait'))!;
    const runId = ((await service.handle('officeStatus', {})) as OfficeView).waits[0]!.runId;
    expect(((await service.handle('getRun', { runId })) as RunView).run.status).toBe('awaiting_approval');
    await page.screenshot({ path: join(ARTIFACTS, 'office-wait.png') });
    // The run's own screen shows what it waits for too, answerable there.
    await wait.getByRole('link', { name: `run ${runId}` }).click();
    await page.getByRole('region', { name: 'Office waits of this run' }).locator(`.office-wait[data-wait="${waitId}"]`).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'office-run-wait.png') });
    await page.locator('nav.topbar').getByRole('link', { name: 'Runs', exact: true }).click();

    await wait.getByRole('textbox', { name: `Note for office wait ${waitId}` }).fill('checked against the register');
    await wait.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(async () => ((await service.handle('getRun', { runId })) as RunView).run.status, { timeout: 120_000 }).toBe('done');
    // The first answer won: a second one is refused and changes nothing.
    expect(await service.handle('answerOfficeWait', { id: waitId, decision: 'deny' })).toEqual({ accepted: false });
    await page.locator('.office-panel .office-wait').waitFor({ state: 'detached', timeout: 10_000 });

    expect(lab.submissions({ clientId: 'irfan-shaikh' })).toHaveLength(1);
    const view = (await service.handle('getRun', { runId })) as RunView;
    expect(view.run.applicationNumber).toMatch(/^SHP-/);
    // Recorded in the office store with the clerk who decided, as every desk's replay reads it.
    const steps = (await service.handle('listSteps', { runId })) as { actions: { approval?: { decision: string; by: string; note?: string } }[] }[];
    const approvals = steps.flatMap((s) => s.actions.flatMap((a) => (a.approval ? [a.approval] : [])));
    expect(approvals).toEqual([expect.objectContaining({ decision: 'approve', by: 'test-clerk', note: 'checked against the register' })]);

    await page.getByRole('button', { name: 'Leave the office queue' }).click();
    await page.getByRole('button', { name: 'Join the office queue' }).waitFor();
  });
});
