import { dirname, join } from 'node:path';
import { saveRunReport } from '../audit';
import type { DemoPortals } from '../service/demo-portals';
import type { RunRecord, StepRecord } from '../shared/run';
import type { Store } from '../store';
import type { ConsoleResources } from './console-resources';

interface RunReplayOptions {
  store: Store;
  /** The run, as the console shows it; refused when this console's store has no such run. */
  requireRun: (runId: string) => Promise<RunRecord>;
  resources: ConsoleResources;
  demo: DemoPortals | undefined;
  /** The store's file: reports go to `reports/` beside it unless `reportsDir` names a folder. */
  dbPath: string;
  reportsDir?: string;
}

/**
 * A run as the Replay screen reads it from the store: its steps and screenshots, the audit chain's
 * verification, and the report the clerk exports.
 */
export class RunReplay {
  constructor(private readonly o: RunReplayOptions) {}

  async steps(runId: string): Promise<StepRecord[]> {
    await this.o.requireRun(runId);
    return this.o.store.listSteps(runId);
  }

  async screenshot(hash: string): Promise<{ pngBase64: string | null }> {
    const png = await this.o.store.getScreenshot(hash);
    return { pngBase64: png ? Buffer.from(png).toString('base64') : null };
  }

  async verify(runId: string): ReturnType<Store['verifyRun']> {
    await this.o.requireRun(runId);
    // The whole answer: the replay screen shows which field broke and what the chain cannot prove.
    return this.o.store.verifyRun(runId);
  }

  async export(runId: string): Promise<{ fileName: string; savedTo: string; bytes: number }> {
    const run = await this.o.requireRun(runId);
    const secrets = await this.secretsOf(run);
    // Written by this process, owner-only (0600), into the reports folder beside the store: a browser download would be world-readable.
    const saved = await saveRunReport(this.o.store, runId, this.o.reportsDir ?? join(dirname(this.o.dbPath), 'reports'), { secrets });
    return { fileName: saved.fileName, savedTo: saved.path, bytes: saved.bytes };
  }

  /** Stored passwords for the run's client and portal: the export's final scan refuses any report containing one. */
  private async secretsOf(run: RunRecord): Promise<string[]> {
    const { vault } = await this.o.resources.openedVault();
    const sources = this.o.demo ? [vault, this.o.demo.credentials] : [vault];
    const secrets: string[] = [];
    for (const source of sources) {
      const credentials = await source.get(run.clientId, run.portal).catch(() => null);
      if (credentials) secrets.push(credentials.password);
    }
    return secrets;
  }
}
