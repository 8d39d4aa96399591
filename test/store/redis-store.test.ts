import { createServer as createNetServer } from 'node:net';
import type { EventEnvelope, NewEvent } from '@planhub/shared';
import { PlanHubError } from '@planhub/shared';
import type { Store } from '@planhub/server';
import { createLogger, createRedisStore } from '@planhub/server';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { storeFixture, type StoreFixture } from '../helpers/stores.ts';

const WS = 'ws-a';

const event = (n: number): NewEvent => ({
  event_type: 'step_completed',
  timestamp: '2025-01-01T00:00:00.000Z',
  workspace: WS,
  source_agent: 'agent-1',
  source_plan_id: null,
  source_plan_title: null,
  source_step_id: `step_${n}`,
  source_step_description: null,
  source_step_sequence: n,
  payload: { n },
});

const collect = (store: Store) => {
  const seen: EventEnvelope[] = [];
  store.watch(WS, (e) => seen.push(e));
  return seen;
};

/** A port nothing listens on. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const srv = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });

describe('the Redis store on a shared Redis', () => {
  let fixture: StoreFixture;
  let admin: Redis;
  beforeEach(() => {
    fixture = storeFixture('redis');
    admin = new Redis(inject('redisUrl'));
  });
  afterEach(async () => {
    admin.disconnect();
    await fixture.close();
  });

  it('lays out keys under the prefix with one hash tag per workspace', async () => {
    const store = fixture.open();
    await store.commit(WS, {
      reads: [],
      writes: [{ key: 'plan:abc', value: { title: 'T' } }],
      events: [event(1)],
      request: { agent_id: 'agent-1', request_id: 'req-1', answer: { ok: 1 }, ttl_ms: 60_000 },
    });
    const p = fixture.prefix;
    expect((await admin.keys(`${p}:*`)).sort()).toEqual(
      [
        `${p}:{ws-a}:doc:plan:abc`,
        `${p}:{ws-a}:events`,
        `${p}:{ws-a}:req:agent-1:req-1`,
        `${p}:{ws-a}:bytes`,
        // The store's epoch, written by the first node to reach it.
        `${p}:epoch`,
        // The stored format of the data under the prefix, raised by each node to its own (stored-format.ts).
        `${p}:format`,
      ].sort(),
    );
    expect(await admin.hgetall(`${p}:{ws-a}:doc:plan:abc`)).toEqual({ v: '1', d: '{"title":"T"}' });
    expect(await admin.pttl(`${p}:{ws-a}:req:agent-1:req-1`)).toBeGreaterThan(0);
    const [[, fields]] = (await admin.xrange(`${p}:{ws-a}:events`, '-', '+')) as [[string, string[]]];
    expect(fields[0]).toBe('e');
    expect(JSON.parse(fields[1]!)).toEqual(event(1));
    // The workspace's stored bytes: the document's JSON and the event's.
    expect(Number(await admin.get(`${p}:{ws-a}:bytes`))).toBe('{"title":"T"}'.length + Buffer.byteLength(fields[1]!));
  });

  it('sees its own first commit even when it commits the moment it is created', async () => {
    const store = fixture.open();
    const seen = collect(store);
    const outcome = await store.commit(WS, { reads: [], writes: [], events: [event(1)] });
    await poll(() => seen).toEqual(outcome.ok ? outcome.events : []);
  });

  it('delivers the same events in the same order to two nodes when both commit', async () => {
    const [a, b] = [fixture.open(), fixture.open()];
    const [seenA, seenB] = [collect(a), collect(b)];
    await Promise.all([a.ping(), b.ping()]);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).commit(WS, { reads: [], writes: [], events: [event(i)] })),
    );
    const log = await a.readEvents(WS, { count: 100 });
    expect(log).toHaveLength(20);
    await poll(() => seenA.length).toBe(20);
    await poll(() => seenB.length).toBe(20);
    expect(seenA).toEqual(log);
    expect(seenB).toEqual(log);
  });

  it('reads back what was published while its subscriber was disconnected, once and in order', async () => {
    const lines: string[] = [];
    const log = createLogger('info', { write: (line: string) => void lines.push(line) });
    const listener = fixture.open({ log });
    const writer = fixture.open();
    const seen = collect(listener);
    await Promise.all([listener.ping(), writer.ping()]);
    await writer.commit(WS, { reads: [], writes: [], events: [event(1)] });
    await poll(() => seen.length).toBe(1);

    const clients = (await admin.client('LIST')) as string;
    const ids = clients
      .split('\n')
      .filter((line) => line.includes(` name=planhub-sub:${fixture.prefix} `))
      .map((line) => /\bid=(\d+)/.exec(line)?.[1]);
    expect(ids).toHaveLength(2);
    for (const id of ids) await admin.client('KILL', 'ID', id!);
    // Committed right after the kill, before either subscriber can have reconnected: only the stream has them.
    for (let n = 2; n <= 4; n++) await writer.commit(WS, { reads: [], writes: [], events: [event(n)] });

    await poll(() => lines.some((l) => l.includes('event subscription restored'))).toBe(true);
    await writer.commit(WS, { reads: [], writes: [], events: [event(5)] });
    await poll(() => seen.length).toBe(5);
    expect(seen).toEqual(await writer.readEvents(WS, { count: 10 }));
    expect(seen.map((e) => e.source_step_sequence)).toEqual([1, 2, 3, 4, 5]);
  });

  it('answers INTERNAL naming the key, without Redis’ own words, when a key holds the wrong type', async () => {
    const store = fixture.open();
    await admin.set(`${fixture.prefix}:{${WS}}:doc:broken`, 'not a hash');
    const err = await store.load(WS, ['broken']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlanHubError);
    expect(err).toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining('The stored document broken is corrupt (a Redis string, not a hash)') as string,
    });
    expect((err as Error).message).not.toMatch(/WRONGTYPE/);
  });

  it('trims the log back to its retention once 1 % over, counting the trimmed events out of the stored bytes', async () => {
    const store = fixture.open({ eventRetention: 200 });
    const p = fixture.prefix;
    const lengths: number[] = [];
    for (let i = 0; i < 260; i++) {
      await store.commit(WS, { reads: [], writes: [], events: [event(i)] });
      lengths.push(await admin.xlen(`${p}:{ws-a}:events`));
    }
    // Up to 201 (1 % over 200), then back to 200: never fewer than the retention once it is reached.
    expect(Math.max(...lengths)).toBe(201);
    expect(lengths.slice(200).every((n) => n === 200 || n === 201)).toBe(true);
    expect(lengths.slice(200)).toContain(200);
    const kept = (await admin.xrange(`${p}:{ws-a}:events`, '-', '+')) as Array<[string, string[]]>;
    const keptBytes = kept.reduce((sum, [, fields]) => sum + Buffer.byteLength(fields[1] ?? ''), 0);
    expect(Number(await admin.get(`${p}:{ws-a}:bytes`))).toBe(keptBytes);
  });

  it('answers INTERNAL naming the document when it is not JSON', async () => {
    const store = fixture.open();
    await admin.hset(`${fixture.prefix}:{${WS}}:doc:broken`, { v: '1', d: '{not json' });
    const err = await store.load(WS, ['broken']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlanHubError);
    expect(err).toMatchObject({
      code: 'INTERNAL',
      message: expect.stringMatching(/^The stored document broken is corrupt \(not JSON\)/) as string,
    });
  });
});

describe('the Redis store with Redis unreachable', () => {
  it('answers UNAVAILABLE for every operation and still closes', async () => {
    const store = createRedisStore({
      url: `redis://127.0.0.1:${await closedPort()}`,
      prefix: 'unreachable',
      eventRetention: 100,
      log: createLogger('silent'),
      startupWaitMs: 100,
    });
    const unavailable = {
      code: 'UNAVAILABLE',
      message: expect.stringMatching(/store is unreachable.*retry/) as string,
    };
    await expect(store.load(WS, ['a'])).rejects.toMatchObject(unavailable);
    await expect(store.commit(WS, { reads: [], writes: [], events: [event(1)] })).rejects.toMatchObject(unavailable);
    await expect(store.requestAnswer(WS, 'a', 'r')).rejects.toMatchObject(unavailable);
    await expect(store.readEvents(WS, { count: 1 })).rejects.toMatchObject(unavailable);
    await expect(store.ping()).rejects.toMatchObject(unavailable);
    await store.close();
    await store.close();
    await expect(store.load(WS, ['a'])).rejects.toMatchObject(unavailable);
  });
});
