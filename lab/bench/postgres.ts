import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/**
 * A throw-away PostgreSQL server, for the bench's office rows and for the tests
 * (test/support/postgres.ts builds its cluster on it): initdb in a temporary folder, a server on a
 * free loopback port with its socket in that folder, trust authentication, stopped and deleted
 * afterwards (and when the process exits). As root, initdb and pg_ctl run as the `postgres` user
 * (PostgreSQL refuses root). Binaries: $PORTAL_DESK_PG_BIN, else the newest
 * /usr/lib/postgresql/N/bin. With none, the start answers why, and the caller says what it skipped.
 */
export interface ThrowAwayPostgres {
  port: number;
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  /** `postgres --version`. */
  version: string;
  /** The server's process (the postmaster): its CPU, and its backends' once they exit, are counted. */
  pid: number;
  /** The throw-away folder (the server's data inside it), deleted by `stop`. */
  dir: string;
  stop(): void;
}

interface ServerSettings {
  /** fsync and synchronous commits on, as an office's server would run (the bench); off for tests. */
  durable: boolean;
  maxConnections: number;
}

export function postgresBinaries(): string | null {
  const given = process.env.PORTAL_DESK_PG_BIN;
  if (given) return existsSync(join(given, 'initdb')) ? given : null;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : null;
}

export async function startThrowAwayPostgres(settings: ServerSettings): Promise<ThrowAwayPostgres | { skipped: string }> {
  const bin = postgresBinaries();
  if (!bin) return { skipped: 'no PostgreSQL binaries (no /usr/lib/postgresql/N/bin/initdb, no $PORTAL_DESK_PG_BIN); install Debian\'s "postgresql"' };
  const dir = mkdtempSync(join(tmpdir(), 'pd-pg-'));
  const asRoot = userInfo().uid === 0;
  const run = (tool: string, args: string[]): string => {
    const command = asRoot ? 'runuser' : join(bin, tool);
    const argv = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    return execFileSync(command, argv, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir, encoding: 'utf8' });
  };
  try {
    if (asRoot) {
      const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
      if (!Number.isInteger(uid)) return { skipped: 'running as root and there is no "postgres" user to run PostgreSQL as' };
      chownSync(dir, uid, uid);
    }
    chmodSync(dir, 0o700);
    const data = join(dir, 'pg');
    run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync', '--no-instructions']);
    const port = await freePort();
    const speed = settings.durable ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off';
    run('pg_ctl', ['-D', data, '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=${settings.maxConnections}${speed}`, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
    const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Already gone.
      }
      rmSync(dir, { recursive: true, force: true });
    };
    process.once('exit', stop);
    return { port, url: `postgres://postgres@127.0.0.1:${port}/postgres`, version: run('postgres', ['--version']).trim(), pid, dir, stop };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const text = err instanceof Error ? ((err as { stderr?: string }).stderr || err.message) : String(err);
    return { skipped: `PostgreSQL did not start: ${text.trim().split('\n')[0]}` };
  }
}

/** The bench's server: durable (fsync on), so a commit costs what it costs on an office's server. */
export function startBenchPostgres(): Promise<ThrowAwayPostgres | { skipped: string }> {
  return startThrowAwayPostgres({ durable: true, maxConnections: 100 });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
