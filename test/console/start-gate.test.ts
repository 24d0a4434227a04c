import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleService } from '../../src/console/console-service';
import { RunBindings } from '../../src/main/run-bindings';
import type { ConsoleEvent, QueueView } from '../../src/shared/console-api';
import { openTestService } from './support';

/**
 * The Electron shell's part of a queue, against its stand-in: the shell learns which client and
 * portal a new browser context belongs to through the service's startGate, which it fills with
 * RunBindings.starting (src/main/shell.ts). Here the real RunBindings stands in for the shell:
 * every run a queue starts passes through the gate with its own client and portal, one start at a
 * time (two offers at once would let a context claim the wrong client's session), and each start
 * ends once the run's page exists, before its first step. The two cases are of two portals: a
 * second run of a portal and task whose route is still being learned waits for the first to end
 * (src/service/learned-routes.ts), and nobody approves the first here.
 */
describe('runs a queue starts go through the shell’s start gate', () => {
  let service: ConsoleService;
  const bindings = new RunBindings();
  const gate: { runId: string; clientId: string; portalId: string; from: number; to?: number }[] = [];
  let open = 0;
  let most = 0;
  const firstStep = new Map<string, number>();
  const queues: QueueView[] = [];

  beforeAll(async () => {
    ({ service } = await openTestService({
      startGate: (run, start) =>
        bindings.starting({ runId: run.runId, clientId: run.clientId, portalId: run.portalId, policy: run.profile }, async () => {
          const entry: (typeof gate)[number] = { runId: run.runId, clientId: run.clientId, portalId: run.portalId, from: Date.now() };
          gate.push(entry);
          most = Math.max(most, ++open);
          try {
            return await start();
          } finally {
            open--;
            entry.to = Date.now();
          }
        }),
    }));
    service.subscribe((event: ConsoleEvent) => {
      if (event.type === 'step' && !firstStep.has(event.runId)) firstStep.set(event.runId, Date.now());
      if (event.type === 'queue') queues.push(event.queue);
    });
  }, 120_000);

  afterAll(async () => {
    await service?.close();
  }, 60_000);

  it('offers each run’s client and portal, one start at a time, ending when its page exists', { timeout: 240_000 }, async () => {
    await service.handle('startQueue', { files: ['shops-renewal-anand-bakery.json', 'power-name-change-deshpande.json'], concurrency: 2 });
    await expect.poll(() => firstStep.size, { timeout: 200_000 }).toBe(2);
    expect(gate.map((g) => `${g.clientId}/${g.portalId}`).sort()).toEqual(['aditya-deshpande/power', 'anand-bakery/shops']);
    expect(most).toBe(1);
    const last = queues[queues.length - 1]!;
    for (const entry of last.entries) {
      const offered = gate.find((g) => g.clientId === entry.clientId)!;
      expect(offered.runId).toBe(entry.runId);
      expect(offered.to, `the start of ${entry.clientId} ended`).toBeDefined();
      expect(offered.to!).toBeLessThanOrEqual(firstStep.get(entry.runId!)!);
    }
  });
});
