import type { Store } from '@planhub/server';
import { describe, expect } from 'vitest';
import { STORE_FIXTURE_KINDS } from '../helpers/stores.ts';
import { WS, event, storeTest } from './conformance-support.ts';

const QUOTA = 20_000;
const doc = (bytes: number) => ({ pad: 'x'.repeat(bytes) });
const put = (store: Store, key: string, value: unknown, workspace = WS) =>
  store.commit(workspace, { reads: [], writes: [{ key, value }], events: [] });

/** Every workspace holds at most its quota of stored bytes; the check is part of the atomic commit. */
describe.each(STORE_FIXTURE_KINDS)('the %s store’s workspace byte quota', (kind) => {
  const it = storeTest(kind);

  it('refuses the commit that would pass the quota, writes nothing, and takes writes again once documents are deleted', async ({
    fixture,
  }) => {
    const store = fixture.open({ workspaceBytes: QUOTA });
    for (let i = 0; i < 3; i++) expect((await put(store, `d${i}`, doc(5_000))).ok).toBe(true);
    const refused = await store.commit(WS, {
      reads: [],
      writes: [{ key: 'big', value: doc(6_000) }],
      events: [event(1)],
    });
    expect(refused).toMatchObject({ ok: false, reason: 'quota', limit: QUOTA });
    expect(!refused.ok && refused.reason === 'quota' && refused.used + refused.needed).toBeGreaterThan(QUOTA);
    expect((await store.load(WS, ['big']))[0]?.value).toBeUndefined();
    expect(await store.readEvents(WS, { count: 10 })).toHaveLength(0);

    // Shrinking or deleting always commits, and frees room.
    expect((await put(store, 'd0', null)).ok).toBe(true);
    expect((await put(store, 'd1', doc(10))).ok).toBe(true);
    expect((await put(store, 'big', doc(6_000))).ok).toBe(true);
    // Another workspace has its own quota.
    expect((await put(store, 'd0', doc(15_000), 'ws-other')).ok).toBe(true);
  });

  it('counts events until they are trimmed from the log', async ({ fixture }) => {
    const store = fixture.open({ workspaceBytes: QUOTA, eventRetention: 3 });
    const large = { ...event(1), payload: { pad: 'y'.repeat(2_000) } };
    // 20 events of ~2.4 KB each would take 48 KB; only the last 3 are kept, so every commit fits.
    for (let i = 0; i < 20; i++)
      expect((await store.commit(WS, { reads: [], writes: [], events: [large] })).ok).toBe(true);
    expect(await store.readEvents(WS, { count: 100 })).toHaveLength(3);
    expect((await put(store, 'fits', doc(QUOTA - 4 * 2_500))).ok).toBe(true);
    expect(await put(store, 'more', doc(5_000))).toMatchObject({ ok: false, reason: 'quota' });
  });

  it('never lets racing commits from two nodes take the workspace past its quota', async ({ fixture }) => {
    // Two Redis stores on one prefix are two nodes on the same data; a memory store is one node.
    const first = fixture.open({ workspaceBytes: QUOTA });
    const nodes = kind === 'redis' ? [first, fixture.open({ workspaceBytes: QUOTA })] : [first, first];
    const size = 1_990; // about 2,000 bytes of JSON each: at most 10 fit
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) => put(nodes[i % 2] as Store, `race${i}`, doc(size))),
    );
    const applied = outcomes.filter((o) => o.ok).length;
    expect(outcomes.filter((o) => !o.ok && o.reason === 'quota')).toHaveLength(30 - applied);
    const stored = await (nodes[0] as Store).load(
      WS,
      Array.from({ length: 30 }, (_, i) => `race${i}`),
    );
    const bytes = stored.reduce((sum, d) => sum + (d.value === undefined ? 0 : JSON.stringify(d.value).length), 0);
    expect(stored.filter((d) => d.value !== undefined)).toHaveLength(applied);
    expect(bytes).toBeLessThanOrEqual(QUOTA);
    expect(applied).toBe(Math.floor(QUOTA / JSON.stringify(doc(size)).length));
  });
});
