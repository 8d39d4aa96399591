import { transact } from '@planhub/server';
import { describe, expect } from 'vitest';
import { STORE_FIXTURE_KINDS } from '../helpers/stores.ts';
import { rounds } from '../helpers/stress.ts';
import { WS, storeTest } from './conformance-support.ts';

const COUNTER = 'drawn';

/** `Tx.draw`: a value per call from a counter, committed on its own, kept across the call's re-runs. */
describe.each(STORE_FIXTURE_KINDS)('drawing from a counter on the %s store', (kind) => {
  const it = storeTest(kind);
  const counter = async (store: Parameters<typeof transact>[0]) =>
    (await store.loadCollections(WS, { counters: [COUNTER] })).counters[0];

  it('gives concurrent calls distinct values, each committing its own document on the first attempt', async ({
    store,
  }) => {
    const n = rounds(20);
    let attempts = 0;
    const drawn = await Promise.all(
      Array.from({ length: n }, () =>
        transact(store, WS, async (tx) => {
          attempts += 1;
          const value = await tx.draw(COUNTER);
          await tx.getMany([`item:${value}`]);
          tx.put(`item:${value}`, { value });
          return value;
        }),
      ),
    );
    expect(attempts).toBe(n);
    expect(drawn.map((d) => d.result).sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(await counter(store)).toBe(n);
  });

  it('keeps the value drawn when the call re-runs after a conflict', async ({ store }) => {
    await store.commit(WS, { reads: [], writes: [{ key: 'shared', value: 0 }], events: [] });
    let attempts = 0;
    const { result } = await transact(store, WS, async (tx) => {
      attempts += 1;
      const [shared] = await tx.getMany(['shared']);
      const value = await tx.draw(COUNTER);
      // Another call changes what the first attempt read, after it drew: the attempt conflicts and re-runs.
      if (attempts === 1) await store.commit(WS, { reads: [], writes: [{ key: 'shared', value: 1 }], events: [] });
      tx.put('shared', { shared, value });
      return value;
    });
    expect(attempts).toBe(2);
    expect(result).toBe(1);
    expect(await counter(store)).toBe(1);
    expect((await store.load(WS, ['shared']))[0]?.value).toEqual({ shared: 1, value: 1 });
  });

  it('draws nothing for a call whose request was already applied, answering it from the request log', async ({
    store,
  }) => {
    const request = { agent_id: 'agent-1', request_id: 'once', ttl_ms: 60_000 };
    const call = () =>
      transact(
        store,
        WS,
        async (tx) => {
          const value = await tx.draw(COUNTER);
          tx.put(`item:${value}`, { value });
          return value;
        },
        { request },
      );
    expect(await call()).toMatchObject({ result: 1, replayed: false });
    expect(await call()).toMatchObject({ result: 1, replayed: true });
    expect(await counter(store)).toBe(1);
  });

  it('draws only once the call is admitted, and nothing when it is refused', async ({ store }) => {
    let admit = () => {};
    const admitted = new Promise<void>((resolve) => (admit = resolve));
    const waiting = transact(store, WS, async (tx) => tx.draw(COUNTER), { admitted });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await counter(store)).toBe(0);
    admit();
    expect((await waiting).result).toBe(1);
    const refusal = new Error('over the call budget');
    const refused = Promise.reject(refusal);
    refused.catch(() => undefined);
    await expect(transact(store, WS, async (tx) => tx.draw(COUNTER), { admitted: refused })).rejects.toBe(refusal);
    expect(await counter(store)).toBe(1);
  });
});
