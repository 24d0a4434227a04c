import type { TestProject } from 'vitest/node';
import { startPostgres, type PgCluster } from './postgres';

/**
 * The integration tier's global setup: one throw-away PostgreSQL cluster for the whole vitest run,
 * shared by every file (each creates its own databases in it), its port provided to the files
 * (`inject('postgresPort')` in test/support/postgres.ts). Null when no binaries are installed: the
 * PostgreSQL legs then skip loudly. Stopped and deleted when the run ends.
 */
let cluster: Promise<PgCluster | null> | null = null;
let users = 0;

export default async function setup(project: TestProject): Promise<() => void> {
  // Several projects may name this setup; they run in this one process and share one cluster.
  cluster ??= startPostgres();
  users += 1;
  const started = await cluster;
  project.provide('postgresPort', started?.port ?? null);
  return () => {
    users -= 1;
    if (users > 0) return;
    started?.stop();
    cluster = null;
  };
}
