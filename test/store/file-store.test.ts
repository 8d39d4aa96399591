import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createFileStore, createLogger, type Store } from '@planhub/server';
import { open as openLmdb } from 'lmdb';
import { afterEach, describe, expect, it } from 'vitest';
import { tempStorageDir } from '../helpers/stores.ts';
import { WS, append, collect, event } from './conformance-support.ts';

/** What only the durable store promises: state outlives the process, and one node owns a directory. */
describe('the file store', () => {
  const dirs: string[] = [];
  const stores: Store[] = [];
  const dir = () => {
    const path = tempStorageDir();
    dirs.push(path);
    return path;
  };
  const open = (path: string, options: { now?: () => number; eventRetention?: number } = {}) => {
    const store = createFileStore({ path, eventRetention: options.eventRetention ?? 100, ...options });
    stores.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    for (const path of dirs.splice(0)) rmSync(path, { recursive: true, force: true });
  });

  it('keeps documents, collections, the event log and remembered answers across a restart', async () => {
    const path = dir();
    const first = open(path);
    const request = {
      agent_id: 'a1',
      request_id: 'r1',
      answer: { plan: 'p1' },
      ttl_ms: 60_000,
      fingerprint: 'createPlan:x',
    };
    const outcome = await first.commit(WS, {
      reads: [{ key: 'plan:p1', version: 0 }],
      writes: [{ key: 'plan:p1', value: { title: 'ü', steps: [1, 2] } }],
      ops: [
        { op: 'sadd', key: 'out:s', members: ['x', 'y'] },
        { op: 'hset', key: 'recv:s', fields: { '"a"': '{"v":1}' } },
        { op: 'incr', key: 'task-ids', by: 3 },
      ],
      events: [event(1), event(2)],
      request,
    });
    expect(outcome.ok).toBe(true);
    await first.close();

    const second = open(path);
    expect(await second.load(WS, ['plan:p1'])).toEqual([{ value: { title: 'ü', steps: [1, 2] }, version: 1 }]);
    expect(await second.loadCollections(WS, { sets: ['out:s'], hashes: ['recv:s'], counters: ['task-ids'] })).toEqual({
      sets: [['x', 'y']],
      hashes: [{ '"a"': '{"v":1}' }],
      counters: [3],
    });
    expect(await second.readEvents(WS, { count: 10 })).toEqual(outcome.ok ? outcome.events : []);
    expect(await second.requestAnswer(WS, 'a1', 'r1')).toEqual({ answer: { plan: 'p1' }, fingerprint: 'createPlan:x' });
    // The retry of the applied request still conflicts after the restart: it is applied exactly once.
    expect(await second.commit(WS, { reads: [], writes: [], events: [event(3)], request })).toEqual({
      ok: false,
      reason: 'conflict',
    });
  });

  it('keeps event ids increasing across a restart, even when the clock went back', async () => {
    const path = dir();
    const first = open(path, { now: () => 5_000 });
    const before = await append(first, [event(1), event(2)]);
    await first.close();
    const second = open(path, { now: () => 1_000 });
    const after = await append(second, [event(3)]);
    expect(before.map((e) => e.event_id)).toEqual(['5000-0', '5000-1']);
    expect(after.map((e) => e.event_id)).toEqual(['5000-2']);
  });

  it('keeps trimming to the retention after a restart', async () => {
    const path = dir();
    const first = open(path, { eventRetention: 3 });
    await append(first, [event(1), event(2)]);
    await first.close();
    const second = open(path, { eventRetention: 3 });
    await append(second, [event(3), event(4)]);
    const kept = await second.readEvents(WS, { count: 10 });
    expect(kept.map((e) => e.source_step_sequence)).toEqual([2, 3, 4]);
  });

  it('upgrades a store written with the old key separator and serves it as it was', async () => {
    const path = dir();
    // What a store written before round 18 holds: keys joined with NUL, for a short workspace name and a UUID.
    const uuid = '8d0f3a52-5c1e-4c55-9d43-1f0b7c1a9e21';
    const old = openLmdb({ path: join(path, 'data'), maxDbs: 16 });
    const table = (name: string) => old.openDB({ name, encoding: 'string' });
    const width = (n: number) => String(n).padStart(16, '0');
    for (const workspace of [WS, uuid]) {
      const events = [1, 2, 3].map((n) => ({ event_id: `5000-${n - 1}`, ...event(n, workspace) }));
      for (const [i, e] of events.entries())
        await table('events').put(`${workspace}\u0000${width(5000)}${width(i)}`, JSON.stringify(e));
      await table('docs').put(`${workspace}\u0000plan:p1`, `4 ${JSON.stringify({ title: workspace })}`);
      await table('meta').put(
        workspace,
        JSON.stringify({ lastMs: 5000, lastSeq: 2, events: 3, eventBytes: 0, docBytes: 0 }),
      );
    }
    await table('requests').put(
      `${uuid}\u0000a1\u0000r1`,
      `${Date.now() + 60_000} ${JSON.stringify({ f: 'x', a: 1 })}`,
    );
    // A key past LMDB's size was stored under the hash of its parts (joined with NUL then): still found after.
    const longAgent = 'a'.repeat(100);
    const longId = '中'.repeat(128);
    const hashed = createHash('sha256').update(`${longAgent}\u0000${longId}`).digest('base64url');
    await table('requests').put(`${uuid}\u0000#${hashed}`, `${Date.now() + 60_000} ${JSON.stringify({ long: true })}`);
    await old.close();

    const store = open(path, { eventRetention: 3, now: () => 5_000 });
    for (const workspace of [WS, uuid]) {
      expect((await store.readEvents(workspace, { count: 10 })).map((e) => e.event_id)).toEqual([
        '5000-0',
        '5000-1',
        '5000-2',
      ]);
      expect(await store.load(workspace, ['plan:p1'])).toEqual([{ value: { title: workspace }, version: 4 }]);
      // The log goes on from the old one, and is trimmed to the retention.
      const [next] = await append(store, [event(4, workspace)], workspace);
      expect(next?.event_id).toBe('5000-3');
      expect((await store.readEvents(workspace, { after: '0-0', count: 10 })).map((e) => e.event_id)).toEqual([
        '5000-1',
        '5000-2',
        '5000-3',
      ]);
    }
    expect(await store.requestAnswer(uuid, 'a1', 'r1')).toEqual({ answer: { f: 'x', a: 1 } });
    expect(await store.requestAnswer(uuid, longAgent, longId)).toEqual({ answer: { long: true } });
  });

  it('deletes expired remembered answers, whatever the length of their keys', async () => {
    const path = dir();
    let now = 1_000_000;
    const store = createFileStore({ path, eventRetention: 100, now: () => now, sweepMs: 20 });
    stores.push(store);
    // Keys of 64 characters and more were read back from the expiry index in parts, and their answers never deleted.
    const workspace = `w${'x'.repeat(40)}`;
    for (const request_id of ['r1', '6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b'])
      await store.commit(workspace, {
        reads: [],
        writes: [],
        events: [],
        request: { agent_id: 'a1', request_id, answer: { request_id }, ttl_ms: 1000 },
      });
    now += 2000;
    await new Promise((resolve) => setTimeout(resolve, 200));
    await store.close();
    const raw = openLmdb({ path: join(path, 'data'), maxDbs: 16 });
    try {
      expect([...raw.openDB({ name: 'requests', encoding: 'string' }).getKeys()]).toEqual([]);
      expect([...raw.openDB({ name: 'request-expiries', encoding: 'string' }).getKeys()]).toEqual([]);
    } finally {
      await raw.close();
    }
  });

  it('tells listeners only of durable events, in commit order', async () => {
    const store = open(dir());
    const { seen } = collect(store);
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => append(store, [event(i)])));
    const ids = outcomes.flat().map((e) => e.event_id);
    expect(seen.map((e) => e.event_id)).toEqual(ids);
  });

  it('refuses a second node on the same directory and lets the next one in after close', async () => {
    const path = dir();
    const first = open(path);
    expect(() => open(path)).toThrow(/storage_path .* is already open in this process/);
    await first.close();
    const next = open(path);
    await expect(next.ping()).resolves.toBeUndefined();
  });

  it('refuses a directory locked by a live process and takes over the lock of a dead one', () => {
    const path = dir();
    const live = { host: hostname(), pid: process.ppid, started: 'earlier' };
    writeFileSync(join(path, 'planhub.lock'), JSON.stringify(live));
    expect(() => open(path)).toThrow(new RegExp(`in use by another PlanHub node \\(pid ${process.ppid}`));
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    writeFileSync(join(path, 'planhub.lock'), JSON.stringify({ ...live, pid: dead }));
    expect(() => open(path)).not.toThrow();
  });

  it('starts over a dead node that crashed while taking over a lock', () => {
    const path = dir();
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    const owner = JSON.stringify({ host: hostname(), pid: dead, started: 'earlier' });
    // What a takeover cut short leaves: the stale lock it was replacing, and its mutex (a link of its own lock).
    writeFileSync(join(path, 'planhub.lock'), owner);
    writeFileSync(join(path, 'planhub.lock.takeover'), owner);
    expect(() => open(path)).not.toThrow();
  });

  it('refuses a storage_path that is a regular file', () => {
    const path = join(dir(), 'plans.json');
    writeFileSync(path, '{"plans": []}');
    expect(() => open(path)).toThrow(/storage_path .*plans\.json is a file/);
  });

  it('keeps revoked tokens across a restart', async () => {
    const path = dir();
    const log = createLogger('silent');
    const first = open(path);
    await first.revocations({ checkMs: 1000, log }).revoke('jti-1', Math.floor(Date.now() / 1000) + 3600);
    await first.close();
    const revocations = open(path).revocations({ checkMs: 1000, log });
    expect(await revocations.isRevoked('jti-1')).toBe(true);
    expect(await revocations.isRevoked('jti-2')).toBe(false);
  });
});
