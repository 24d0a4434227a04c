import { describe, expect, it } from 'vitest';
import { clientPartition, RunBindings, type RunBinding } from '../../src/main/run-bindings';

/** Which client's session (and which portal's policy) a new browser context gets. */

const binding = (clientId: string): RunBinding => ({ runId: `run-${clientId}`, clientId, portalId: 'shops', policy: { name: 'Shops', allowedHosts: ['shops.portal.example'], allowHttp: false } });

describe('clientPartition', () => {
  it('gives each client its own persistent partition', () => {
    expect(clientPartition('anand-bakery')).toBe('persist:client-anand-bakery');
    expect(clientPartition('C.001_x')).toBe('persist:client-C.001_x');
  });

  it('refuses ids that could name another partition or a path', () => {
    for (const id of ['', 'a/b', '../x', 'a b', 'x:y', 'é', 'a'.repeat(81)]) expect(() => clientPartition(id), id).toThrow(/not a client id/);
  });
});

describe('RunBindings', () => {
  it('offers the binding to the first new context during the start, and keeps it for that context’s later pages', async () => {
    const bindings = new RunBindings();
    const claimed = await bindings.starting(binding('a'), async () => {
      const first = bindings.claim('ctx-1');
      const again = bindings.claim('ctx-1');
      const other = bindings.claim('ctx-2');
      return { first, again, other };
    });
    expect(claimed.first?.clientId).toBe('a');
    expect(claimed.again).toBe(claimed.first);
    expect(claimed.other).toBeUndefined();
    expect(bindings.claim('ctx-1')?.clientId).toBe('a');
    bindings.release('ctx-1');
    expect(bindings.claim('ctx-1')).toBeUndefined();
  });

  it('withdraws an unclaimed offer when the start ends, even when it fails', async () => {
    const bindings = new RunBindings();
    await expect(bindings.starting(binding('a'), async () => Promise.reject(new Error('bad case')))).rejects.toThrow('bad case');
    expect(bindings.claim('late')).toBeUndefined();
  });

  it('runs starts one at a time, so each context claims its own run', async () => {
    const bindings = new RunBindings();
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = bindings.starting(binding('a'), async () => {
      order.push('a starts');
      await gate;
      order.push(`a claims ${bindings.claim('ctx-a')?.clientId}`);
    });
    const second = bindings.starting(binding('b'), async () => {
      order.push(`b claims ${bindings.claim('ctx-b')?.clientId}`);
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual(['a starts']);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['a starts', 'a claims a', 'b claims b']);
  });

  it('has nothing to offer when the start named no readable case', async () => {
    const bindings = new RunBindings();
    await bindings.starting(undefined, async () => expect(bindings.claim('ctx')).toBeUndefined());
  });
});
