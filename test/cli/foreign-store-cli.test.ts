import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { REPO, runCli } from '../support/cli';

/**
 * Issue 29, item 6: `run --db` at another program's SQLite file once adopted it (switched it to
 * WAL, added our tables). A file that is not ours (another application id, a user_version, no
 * schema of ours, or tables we do not have) is refused in one line, exit 2, and left byte for byte.
 */
const SHOPS_CASE = join(REPO, 'resources/cases/shops-renewal-anand-bakery.json');
const dir = mkdtempSync(join(tmpdir(), 'pd-foreign-'));

function foreignFile(name: string, build: (db: Database.Database) => void): string {
  const path = join(dir, name);
  const db = new Database(path);
  build(db);
  db.close();
  return path;
}

describe('a store that is not ours (the CLI, as a real process)', () => {
  it('is refused in one line, exit 2, and left byte for byte unchanged', { timeout: 240_000 }, async () => {
    const files = [
      { path: foreignFile('contacts.sqlite', (db) => db.exec('CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES (\'Asha\')')), expect: /without its schema/ },
      { path: foreignFile('app-id.sqlite', (db) => db.pragma('application_id = 1234')), expect: /application id 1234/ },
      { path: foreignFile('user-version.sqlite', (db) => db.pragma('user_version = 7')), expect: /user_version 7/ },
      {
        path: foreignFile('lookalike.sqlite', (db) => db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT, checksum TEXT, applied_at TEXT); CREATE TABLE invoices (total REAL)')),
        expect: /holds tables Portal Desk does not have: invoices/,
      },
    ];
    for (const { path, expect: problem } of files) {
      const before = readFileSync(path);
      const r = await runCli(['run', '--case', SHOPS_CASE, '--db', path, '--approve', 'all'], { timeoutMs: 60_000 });
      expect(r.code, r.stderr).toBe(2);
      const lines = r.stderr.split('\n').filter((l) => l !== '');
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^portal-desk run: Could not open the Portal Desk database at ${path}: it is not a Portal Desk store`));
      expect(lines[0]).toMatch(problem);
      expect(readFileSync(path).equals(before), path).toBe(true);
    }
  });
});
