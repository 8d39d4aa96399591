import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createFileStore, type Store } from '@planhub/server';
import { open as openLmdb, type RootDatabase } from 'lmdb';
import { afterEach, describe, expect, it } from 'vitest';
import { openTables } from '../../server/src/store/file/file-tables.ts';
import { sweepRequests } from '../../server/src/store/file/request-sweep.ts';
import { tempStorageDir } from '../helpers/stores.ts';
import { WS } from './conformance-support.ts';

const SEP = '\u001f';
const width = (n: number) => String(n).padStart(16, '0');

const remember = (agent_id: string, request_id: string, ttl_ms: number, keep?: number) => ({
  reads: [],
  writes: [],
  events: [],
  request: { agent_id, request_id, answer: { request_id }, ttl_ms, ...(keep === undefined ? {} : { keep }) },
});

/** The file store's request log on disk: an agent's order entries must go with the answers they list. */
describe('the file store request order', () => {
  const dirs: string[] = [];
  const stores: Store[] = [];
  const roots: RootDatabase[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await Promise.all(roots.splice(0).map((r) => r.close()));
    for (const path of dirs.splice(0)) rmSync(path, { recursive: true, force: true });
  });
  const dir = () => {
    const path = tempStorageDir();
    dirs.push(path);
    return path;
  };
  // The sweep is run by hand on the closed store's files: the test waits on nothing but the sweep itself.
  const raw = (path: string) => {
    const root = openLmdb({ path: join(path, 'data'), maxDbs: 16 });
    roots.push(root);
    const tables = openTables(root);
    const sweep = (at: number) =>
      sweepRequests(
        tables,
        (fn) => root.transaction(fn),
        () => at,
      );
    return { root, tables, sweep };
  };
  const keysOf = (root: RootDatabase, name: string) => [...root.openDB({ name, encoding: 'string' }).getKeys()];

  it('forgets the order entries of an idle agent whose answers expired', async () => {
    const path = dir();
    let now = 1_000_000;
    const store = createFileStore({ path, eventRetention: 100, now: () => now });
    // A hashed request key (past LMDB's key size) names no agent: its order entry must be found all the same.
    for (const request_id of ['r1', 'r2', 'x'.repeat(600)])
      expect(await store.commit(WS, remember('idle', request_id, 1000, 10))).toMatchObject({ ok: true });
    now += 500;
    expect(await store.commit(WS, remember('busy', 'b1', 60_000, 10))).toMatchObject({ ok: true });
    await store.close();

    const { root, sweep } = raw(path);
    expect(keysOf(root, 'request-order')).toHaveLength(4 + 2);
    await sweep(now + 1000);
    expect(keysOf(root, 'requests')).toEqual([`${WS}${SEP}busy${SEP}b1`]);
    // Only the agent that still holds an answer keeps its order: its entry and its counts.
    expect(keysOf(root, 'request-order')).toEqual([`${WS}${SEP}busy`, `${WS}${SEP}busy${SEP}${width(0)}`]);
  });

  it('numbers an agent afresh once the sweep forgot it, and bounds it as before', async () => {
    const path = dir();
    let now = 1_000_000;
    const first = createFileStore({ path, eventRetention: 100, now: () => now });
    await first.commit(WS, remember('a1', 'old', 1000, 2));
    await first.close();
    now += 2000;
    await raw(path).sweep(now);
    await roots.splice(0)[0]?.close();

    const second = createFileStore({ path, eventRetention: 100, now: () => now });
    stores.push(second);
    for (const request_id of ['n1', 'n2', 'n3'])
      expect(await second.commit(WS, remember('a1', request_id, 60_000, 2))).toMatchObject({ ok: true });
    expect(await second.requestAnswer(WS, 'a1', 'n1')).toBeUndefined();
    expect(await second.requestAnswer(WS, 'a1', 'n3')).toEqual({ answer: { request_id: 'n3' } });
    expect(await second.commit(WS, remember('a1', 'n2', 60_000, 2))).toEqual({ ok: false, reason: 'conflict' });
  });

  it('drops every entry past a lowered `keep` in one commit', async () => {
    const path = dir();
    const store = createFileStore({ path, eventRetention: 100 });
    for (let i = 0; i < 10; i++) await store.commit(WS, remember('a1', `r${i}`, 60_000));
    await store.commit(WS, remember('a1', 'r10', 60_000, 3));
    const kept: string[] = [];
    for (let i = 0; i <= 10; i++) if (await store.requestAnswer(WS, 'a1', `r${i}`)) kept.push(`r${i}`);
    expect(kept).toEqual(['r8', 'r9', 'r10']);
    await store.close();
    const { root, tables } = raw(path);
    expect(keysOf(root, 'request-order')).toHaveLength(1 + 3);
    expect(JSON.parse(tables.requestOrder.get(`${WS}${SEP}a1`) ?? '')).toEqual({ next: 11, listed: 3 });
  });

  it('sweeps expiry entries written by earlier builds, which hold the request key or nothing', async () => {
    const path = dir();
    const { root, tables, sweep } = raw(path);
    const expires = 5_000;
    const requests = [`${WS}${SEP}a1${SEP}r1`, `${WS}${SEP}a1${SEP}r2`];
    await root.transaction(() => {
      for (const [i, key] of requests.entries()) {
        tables.requests.put(key, `${expires} ${JSON.stringify({ i })}`);
        tables.expiries.put(`${width(expires)}${SEP}${key}`, i === 0 ? key : '');
        tables.requestOrder.put(`${WS}${SEP}a1${SEP}${width(i)}`, JSON.stringify([key, expires]));
      }
      tables.requestOrder.put(`${WS}${SEP}a1`, JSON.stringify({ next: 2, listed: 2 }));
    });
    await sweep(expires + 1);
    expect(keysOf(root, 'requests')).toEqual([]);
    expect(keysOf(root, 'request-expiries')).toEqual([]);
  });
});
