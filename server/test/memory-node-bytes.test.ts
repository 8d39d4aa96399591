import type { EventEnvelope, NewEvent } from '@planhub/shared';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyOps } from '../src/store/memory-apply.ts';
import { collectionBytes, opBytes } from '../src/store/memory-collection-bytes.ts';
import { EventLog, type EventTotals } from '../src/store/memory-event-log.ts';
import { createNodeBytes, WORKSPACE_BYTES } from '../src/store/memory-node-bytes.ts';
import { createMemoryStore } from '../src/store/memory-store.ts';
import { emptyWorkspace, type Workspace } from '../src/store/memory-workspace.ts';
import { createRequestIndex } from '../src/store/request-index.ts';
import type { StoreOp } from '../src/store/store.ts';

const fresh = () => emptyWorkspace(new EventLog(), createRequestIndex());

/** What the workspace's collections count, recomputed from scratch. */
const recount = (w: Workspace) =>
  [...w.sets.keys()].reduce((sum, k) => sum + collectionBytes(w, 'set', k), 0) +
  [...w.hashes.keys()].reduce((sum, k) => sum + collectionBytes(w, 'hash', k), 0) +
  [...w.zsets.keys()].reduce((sum, k) => sum + collectionBytes(w, 'zset', k), 0) +
  [...w.counters.keys()].reduce((sum, k) => sum + collectionBytes(w, 'counter', k), 0);

const key = fc.constantFrom('k1', 'k2', 'ключ');
const names = fc.array(fc.constantFrom('a', 'b', 'ü', 'long-member-name'), { maxLength: 4 });
const op: fc.Arbitrary<StoreOp> = fc.oneof(
  fc.record({ op: fc.constant('sadd' as const), key, members: names }),
  fc.record({ op: fc.constant('srem' as const), key, members: names }),
  fc.record({
    op: fc.constant('hset' as const),
    key,
    fields: fc.dictionary(fc.constantFrom('f', 'g', 'é'), fc.string({ maxLength: 6 })),
    onlyNew: fc.boolean(),
  }),
  fc.record({ op: fc.constant('hdel' as const), key, fields: names }),
  fc.record({ op: fc.constant('incr' as const), key, by: fc.integer({ min: -3, max: 3 }) }),
  fc.record({ op: fc.constant('zadd' as const), key, members: fc.dictionary(fc.constantFrom('a', 'b'), fc.nat(9)) }),
  fc.record({ op: fc.constant('zrem' as const), key, members: names }),
  fc.record({ op: fc.constant('del' as const), kind: fc.constantFrom('set', 'hash', 'zset', 'counter'), key }),
);

describe('the memory store’s collection bytes', () => {
  it('stay exact as operations apply, and each estimate made before one is never below what it adds', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const w = fresh();
        for (const o of ops) {
          const estimate = opBytes(w, o);
          const before = w.collectionBytes;
          applyOps(w, [o], []);
          const added = w.collectionBytes - before;
          expect(w.collectionBytes).toBe(recount(w));
          expect(estimate).toBeGreaterThanOrEqual(added);
          // Only a sorted set's adds and removes are estimated on the high side.
          if (o.op !== 'zadd' && o.op !== 'zrem') expect(estimate).toBe(added);
        }
      }),
    );
  });
});

const eventAt = (n: number) => ({ event_id: `${1_700_000_000_000 + n}-0` }) as EventEnvelope;

describe('the event totals every log adds to', () => {
  it('hold the bytes of all events kept and of each log’s newest one', () => {
    const moves = fc.array(fc.record({ log: fc.nat(2), append: fc.boolean(), bytes: fc.integer({ min: 1, max: 50 }) }));
    fc.assert(
      fc.property(moves, (history) => {
        const totals: EventTotals = { bytes: 0, pinned: 0 };
        const logs = [new EventLog(totals), new EventLog(totals), new EventLog(totals)];
        history.forEach((move, n) => {
          const log = logs[move.log] as EventLog;
          if (move.append) log.append(eventAt(n), move.bytes);
          else log.dropOldest();
        });
        expect(totals.bytes).toBe(logs.reduce((sum, l) => sum + l.bytes, 0));
        expect(totals.pinned).toBe(logs.reduce((sum, l) => sum + l.newestBytes, 0));
      }),
    );
  });
});

describe('the node’s bound', () => {
  const noEvents = { bytes: 0, last: 0, replaced: 0 };

  it('refuses growth past it with what a model and an operator need, and never refuses a commit that frees', () => {
    const node = createNodeBytes({ storeBytes: 1_000, eventBytes: 400 });
    node.changed(900);
    expect(node.refusal(100, noEvents)).toBeUndefined();
    const refused = node.refusal(101, noEvents);
    expect(refused).toMatchObject({
      code: 'RESOURCE_EXHAUSTED',
      details: { kind: 'memoryStoreBytes', used: 900, needed: 101, limit: 1_000 },
    });
    expect(refused?.message).toMatch(/holds 900 bytes across all workspaces; this change needs 101 more/);
    expect(refused?.message).toMatch(/Nothing was written; reads still work/);
    expect(refused?.message).toContain('PLANHUB_MEMORY_STORE_BYTES');
    node.changed(500);
    expect(node.refusal(-1, noEvents)).toBeUndefined();
    expect(node.refusal(0, noEvents)).toBeUndefined();
  });

  it('forgets what it may reclaim to make room, and only when that makes room', () => {
    const node = createNodeBytes({ storeBytes: 1_000 });
    let reclaimable = 300;
    const freed: number[] = [];
    node.reclaimFrom({
      bytes: () => reclaimable,
      free: (bytes) => {
        freed.push(bytes);
        reclaimable -= bytes;
        node.changed(-bytes);
      },
    });
    node.changed(900);
    // Needs 400 past the bound; 300 can be forgotten: refused, and nothing forgotten for it.
    expect(node.refusal(500, noEvents)).toMatchObject({ details: { used: 900, needed: 500 } });
    expect(freed).toEqual([]);
    expect(node.refusal(300, noEvents)).toBeUndefined();
    expect(freed).toEqual([200]);
    expect(node.used()).toBe(700);
  });

  it('counts new events in full below the event budget, and past it only down to what the budget keeps', () => {
    const node = createNodeBytes({ storeBytes: 1_000, eventBytes: 400 });
    node.changed(500);
    node.events.bytes = 300;
    node.events.pinned = 100;
    // 300 + 150 passes the budget: old events go down to 400, so the events grow the store by 100, not 150.
    expect(node.refusal(100, { bytes: 150, last: 150, replaced: 0 })).toBeUndefined();
    expect(node.refusal(101, { bytes: 150, last: 150, replaced: 0 })).toMatchObject({ details: { needed: 201 } });
    expect(node.refusal(100, { bytes: 100, last: 100, replaced: 0 })).toBeUndefined();
    // Within the budget every byte counts.
    expect(node.refusal(150, { bytes: 60, last: 60, replaced: 0 })).toMatchObject({ details: { needed: 210 } });
    // Each log keeps its newest event whatever the budget: those cannot be dropped to make room.
    node.events.bytes = 400;
    node.events.pinned = 380;
    expect(node.refusal(0, { bytes: 300, last: 300, replaced: 20 })).toMatchObject({ details: { needed: 260 } });
    expect(createNodeBytes({}).refusal(Number.MAX_SAFE_INTEGER, noEvents)).toBeUndefined();
  });
});

describe('the memory store under its bound', () => {
  const event = { type: 'plan_created', agent_id: 'a', payload: { pad: 'e'.repeat(100) } } as unknown as NewEvent;
  const put = (store: ReturnType<typeof createMemoryStore>, ws: string, key: string, value: unknown) =>
    store.commit(ws, { reads: [], writes: [{ key, value }], events: [event] });

  it('counts workspaces, documents, collections and remembered answers, and lets reads of new names cost nothing', async () => {
    const store = createMemoryStore({ eventRetention: 100, storeBytes: 3 * WORKSPACE_BYTES + 2_000 });
    for (let i = 0; i < 50; i++) await store.load(`nobody-${i}`, ['x']);
    for (let i = 0; i < 3; i++) expect((await put(store, `w${i}`, 'd', { pad: 'x' })).ok).toBe(true);
    // A fourth workspace costs its own heap, which no longer fits.
    await expect(put(store, 'w3', 'd', { pad: 'x' })).rejects.toMatchObject({
      code: 'RESOURCE_EXHAUSTED',
      details: { kind: 'memoryStoreBytes' },
    });
    expect(await store.readEvents('w3', { count: 10 })).toHaveLength(0);
    // Collections and answers count: a set of many members is refused, deleting a document makes room again.
    const members = Array.from({ length: 40 }, (_, i) => `member-${i}`);
    const add = (list: string[]) => ({
      reads: [],
      writes: [],
      events: [],
      ops: [{ op: 'sadd' as const, key: 's', members: list }],
    });
    const grow = add(members);
    await expect(store.commit('w0', grow)).rejects.toMatchObject({ details: { kind: 'memoryStoreBytes' } });
    expect((await store.loadCollections('w0', { sets: ['s'] })).sets).toEqual([[]]);
    expect((await put(store, 'w1', 'd', null)).ok).toBe(true);
    expect((await store.commit('w0', add(members.slice(0, 5)))).ok).toBe(true);
  });

  it('keeps taking events when the bound is below the event budget: events are dropped, never made to refuse', async () => {
    // The default event budget (256 MiB) beside a 300 KB bound: every write was refused for good after 388 commits
    // of 500-byte events, since events leave only past their own budget.
    const store = createMemoryStore({ eventRetention: 10_000, storeBytes: 300_000, eventBytes: 256 * 1024 * 1024 });
    const big = { ...event, payload: { pad: 'e'.repeat(500) } } as unknown as NewEvent;
    for (let i = 0; i < 2_000; i++)
      expect((await store.commit('ws', { reads: [], writes: [], events: [big] })).ok, `commit ${i}`).toBe(true);
    expect((await store.readEvents('ws', { count: 10_000 })).length).toBeLessThan(2_000);
  });
});
