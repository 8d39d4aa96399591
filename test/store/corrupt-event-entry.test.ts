import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createFileStore, type Store } from '@planhub/server';
import type { EventEnvelope } from '@planhub/shared';
import { Cluster, Redis } from 'ioredis';
import { open as openLmdb } from 'lmdb';
import { afterEach, describe, expect, inject, it as plainIt } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { capturedLog } from '../helpers/presence-taker.ts';
import { tempStorageDir, testClusterNodes, type StoreFixtureKind } from '../helpers/stores.ts';
import { append, collect, event, storeTest, WS } from './conformance-support.ts';

const rawClient = (kind: StoreFixtureKind): Redis | Cluster =>
  kind === 'redis'
    ? new Redis(inject('redisUrl'))
    : new Cluster(testClusterNodes().map((n) => ({ host: n.split(':')[0], port: Number(n.split(':')[1]) })));

const steps = (events: readonly EventEnvelope[]) => events.map((e) => e.source_step_id);

/** Log lines that name a skipped entry: the log's key and the entry's id, in an error. */
const namings = (lines: readonly { level: number; msg: string; stream?: string; entry?: string }[]) =>
  lines.filter((l) => l.msg === 'corrupt event log entry skipped').map((l) => [l.level, l.stream, l.entry]);

/**
 * A log entry that is not an event (written by hand, or by the fill commit.lua no longer lets through) used to fail
 * every read that reached it: getTaskEvents and every new subscription of the workspace answered INTERNAL, and the
 * node's feed retried its read-back forever while every later live event waited behind it.
 */
describe.each(['redis', 'redis-cluster'] as const)('a corrupt entry in the event log (%s store)', (kind) => {
  const it = storeTest(kind);

  it('is skipped by every read, named once, and paging reads on past it', async ({ fixture }) => {
    const { log, lines } = capturedLog();
    const store = fixture.open({ log });
    const raw = rawClient(kind);
    try {
      const stream = `${fixture.prefix}:{${WS}}:events`;
      const [first, second] = await append(store, [event(1), event(2), event(3)]);
      const corrupt = await raw.xadd(stream, '*', 'e', '{not json');
      const [, fifth] = await append(store, [event(4), event(5)]);

      for (let i = 0; i < 3; i++)
        expect(steps(await store.readEvents(WS, { count: 100 }))).toEqual([
          'step_1',
          'step_2',
          'step_3',
          'step_4',
          'step_5',
        ]);
      expect(steps(await store.readEvents(WS, { after: second?.event_id ?? '', count: 2 }))).toEqual([
        'step_3',
        'step_4',
      ]);
      expect(steps(await store.readEvents(WS, { before: fifth?.event_id ?? '', count: 2 }))).toEqual([
        'step_3',
        'step_4',
      ]);
      expect(steps(await store.readEvents(WS, { after: first?.event_id ?? '', count: 1 }))).toEqual(['step_2']);
      expect(namings(lines)).toEqual([[50, stream, corrupt]]);
    } finally {
      raw.disconnect();
    }
  });

  it("keeps another node's feed delivering the events after it", async ({ fixture, store }) => {
    const watcher = fixture.open();
    const raw = rawClient(kind);
    const { seen, off } = collect(watcher);
    try {
      // The watch's starting point is read before anything is committed.
      await watcher.readEvents(WS, { count: 1 });
      await append(store, [event(1)]);
      await eventually(() => expect(steps(seen)).toEqual(['step_1']));
      // Not published: the next event's message names it as its predecessor, so the watcher reads the log back.
      await raw.xadd(`${fixture.prefix}:{${WS}}:events`, '*', 'e', '{not json');
      await append(store, [event(2)]);
      await append(store, [event(3)]);
      await eventually(() => expect(steps(seen)).toEqual(['step_1', 'step_2', 'step_3']));
    } finally {
      off();
      raw.disconnect();
    }
  });
});

describe('a corrupt entry in the event log (file store)', () => {
  const dirs: string[] = [];
  const stores: Store[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    for (const path of dirs.splice(0)) rmSync(path, { recursive: true, force: true });
  });
  const open = (path: string, options: { log?: ReturnType<typeof capturedLog>['log']; retention?: number } = {}) => {
    const store = createFileStore({
      path,
      eventRetention: options.retention ?? 100,
      ...(options.log ? { log: options.log } : {}),
    });
    stores.push(store);
    return store;
  };
  /** Writes `text` over the workspace's `index`-th log entry while no store has the directory open. */
  const corruptEntry = async (path: string, index: number, text: string) => {
    const raw = openLmdb({ path: join(path, 'data'), maxDbs: 16 });
    try {
      const table = raw.openDB({ name: 'events', encoding: 'string' });
      const keys = [...table.getRange({})].map((e) => String(e.key)).filter((k) => k.startsWith(`${WS}\u001f`));
      await table.put(keys[index] ?? '', text);
    } finally {
      await raw.close();
    }
  };

  plainIt('is skipped by every read and named once with its id', async () => {
    const path = tempStorageDir();
    dirs.push(path);
    const events = await append(open(path), [event(1), event(2), event(3), event(4)]);
    await stores.splice(0, 1)[0]?.close();
    await corruptEntry(path, 2, '{not json');

    const { log, lines } = capturedLog();
    const store = open(path, { log });
    for (let i = 0; i < 3; i++)
      expect(steps(await store.readEvents(WS, { count: 100 }))).toEqual(['step_1', 'step_2', 'step_4']);
    expect(steps(await store.readEvents(WS, { after: events[1]?.event_id ?? '', count: 1 }))).toEqual(['step_4']);
    expect(steps(await store.readEvents(WS, { before: events[3]?.event_id ?? '', count: 1 }))).toEqual(['step_2']);
    expect(namings(lines)).toEqual([[50, `events of ${WS}`, events[2]?.event_id]]);
  });

  plainIt('does not fail the commit whose retention trims it', async () => {
    const path = tempStorageDir();
    dirs.push(path);
    const events = await append(open(path, { retention: 3 }), [event(1), event(2), event(3)]);
    await stores.splice(0, 1)[0]?.close();
    await corruptEntry(path, 0, '{not json');

    const store = open(path, { retention: 3 });
    await append(store, [event(4)]);
    expect(await store.trimmedThrough(WS)).toBe(events[0]?.event_id);
    expect(steps(await store.readEvents(WS, { count: 100 }))).toEqual(['step_2', 'step_3', 'step_4']);
  });
});
