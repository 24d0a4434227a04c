import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { portalsCommand } from '../../src/cli/commands/portals';
import { main } from '../../src/cli/main';
import type { RequestMapEntry } from '../../src/shared/request-map';
import { openPgStore, openStore, requestMapsOf, type Store } from '../../src/store';
import { postgresBin, sharedPostgres } from '../support/postgres';

/** Learned request map entries in both stores: per portal, versioned, with who taught them; listed and removed by the CLI. */

const SAVE: RequestMapEntry = { method: 'POST', path: '/apply/owner', host: 'shops.portal.example', kind: 'save', fields: ['owner_name', '_action'], values: { _action: ['next'] } };
const LOOKUP: RequestMapEntry = { method: 'GET', path: '/api/pin', kind: 'lookup', fields: ['pin'] };

async function exercise(store: Store): Promise<void> {
  const maps = requestMapsOf(store);
  try {
    const first = await maps.learn('shops', SAVE, 'clerk Ravi', 'run-1');
    expect(first).toMatchObject({ portal: 'shops', version: 1, entry: SAVE, taughtBy: 'clerk Ravi', runId: 'run-1' });
    // The same method, host, path and shape taught again: one entry, a new version, the new teacher.
    const again = await maps.learn('shops', SAVE, 'clerk Asha', 'run-2');
    expect(again).toMatchObject({ id: first.id, version: 2, taughtBy: 'clerk Asha', runId: 'run-2' });
    await maps.learn('power', LOOKUP, 'clerk Ravi', null);
    expect((await maps.listMap('shops')).map((e) => e.entry)).toEqual([SAVE]);
    expect((await maps.listMap()).map((e) => e.portal)).toEqual(['power', 'shops']);
    expect(await maps.removeMapEntry('power', first.id)).toBe(false);
    expect(await maps.removeMapEntry('shops', first.id)).toBe(true);
    expect(await maps.listMap('shops')).toEqual([]);
  } finally {
    maps.close();
  }
}

describe('learned request map store', () => {
  it('SQLite', async () => {
    const store = openStore(join(mkdtempSync(join(tmpdir(), 'pd-map-')), 'runs.sqlite'));
    try {
      await exercise(store);
    } finally {
      await store.close();
    }
  });

  it.skipIf(!postgresBin())('PostgreSQL', { timeout: 120_000 }, async () => {
    const cluster = (await sharedPostgres())!;
    const store = await openPgStore(await cluster.createDatabase('request_map'));
    try {
      await exercise(store);
    } finally {
      await store.close();
    }
  });
});

describe('portal-desk portals map', () => {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void out.push(line));
  const error = vi.spyOn(console, 'error').mockImplementation((line: string) => void err.push(line));
  afterAll(() => {
    log.mockRestore();
    error.mockRestore();
  });

  it('lists what the clerk taught, with who, and removes an entry by id', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'pd-map-')), 'runs.sqlite');
    const store = openStore(db);
    const maps = requestMapsOf(store);
    const kept = await maps.learn('shops', SAVE, 'clerk Ravi', 'run-1');
    maps.close();
    await store.close();
    out.length = 0;
    expect(await portalsCommand(['map', 'list', 'shops', '--db', db])).toBe(0);
    expect(out.join('\n')).toMatch(new RegExp(`^shops  #${kept.id}  v1  POST shops\\.portal\\.example/apply/owner \\(save; fields owner_name, _action; _action=next\\)  taught by clerk Ravi in run run-1`));
    expect(await portalsCommand(['map', 'remove', 'shops', String(kept.id), '--db', db])).toBe(0);
    out.length = 0;
    expect(await portalsCommand(['map', 'list', '--db', db])).toBe(0);
    expect(out.join('\n')).toMatch(/No learned request map entries yet/);
  });

  it('bad input: one line, exit 2', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'pd-map-')), 'runs.sqlite');
    for (const args of [['map', 'forget'], ['routes'], ['map', 'remove', 'shops'], ['map', 'remove', 'shops', 'x1']]) {
      err.length = 0;
      expect(await main(['portals', ...args, '--db', db]), args.join(' ')).toBe(2);
      expect(err, args.join(' ')).toHaveLength(1);
    }
  });
});
