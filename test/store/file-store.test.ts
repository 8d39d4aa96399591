import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createFileStore, createLogger, type Store } from '@planhub/server';
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
