import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import { afterEach, describe, expect, it } from 'vitest';
import { commitInTransaction } from '../src/store/file/file-commit.ts';
import { openTables } from '../src/store/file/file-tables.ts';
import { sweepRequests } from '../src/store/file/request-sweep.ts';
import type { Commit } from '../src/store/store.ts';

describe("the file store's request-log sweep", () => {
  const dirs: string[] = [];
  const roots: RootDatabase[] = [];
  afterEach(async () => {
    await Promise.all(roots.splice(0).map((r) => r.close()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const setup = () => {
    const dir = mkdtempSync(join(tmpdir(), 'planhub-sweep-'));
    dirs.push(dir);
    const root = open({ path: dir, overlappingSync: false, maxDbs: 16 });
    roots.push(root);
    const tables = openTables(root);
    const write = <T>(fn: () => T) => root.transaction(fn);
    const remember = (at: number, requestId: string, ttl: number) => {
      const commit: Commit = {
        reads: [],
        writes: [],
        events: [],
        request: { agent_id: 'a', request_id: requestId, answer: { at }, ttl_ms: ttl },
      };
      return write(() => commitInTransaction(tables, 'ws', commit, { eventRetention: 10, now: () => at }));
    };
    const count = (name: 'requests' | 'expiries') => [...tables[name].getRange({})].length;
    return { tables, write, remember, count };
  };

  it('deletes expired answers and their index entries, and keeps live ones', async () => {
    const { tables, write, remember, count } = setup();
    await remember(1_000, 'old', 100);
    await remember(1_000, 'live', 10_000);
    expect([count('requests'), count('expiries')]).toEqual([2, 2]);
    await sweepRequests(tables, write, () => 2_000);
    expect([count('requests'), count('expiries')]).toEqual([1, 1]);
    expect([...tables.requests.getRange({})][0]?.key).toMatch(/live$/);
  });

  it('keeps an answer remembered again under the same key after its first entry expired', async () => {
    const { tables, write, remember, count } = setup();
    await remember(1_000, 'again', 100);
    // Expired at 1_100; the same request key is remembered anew at 1_500 until 11_500.
    expect((await remember(1_500, 'again', 10_000)).ok).toBe(true);
    await sweepRequests(tables, write, () => 2_000);
    expect([count('requests'), count('expiries')]).toEqual([1, 1]);
  });

  it('works through more expired entries than one batch', async () => {
    const { tables, write, remember, count } = setup();
    await Promise.all(Array.from({ length: 2_500 }, (_, i) => remember(1_000, `r${i}`, 100)));
    await sweepRequests(tables, write, () => 2_000);
    expect([count('requests'), count('expiries')]).toEqual([0, 0]);
  });
});
