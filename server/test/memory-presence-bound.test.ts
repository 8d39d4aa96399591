import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../src/store/memory-store.ts';
import type { Store } from '../src/store/store.ts';

const TTL_MS = 60_000;
const BOUND = 40_000;
const at = new Date(0).toISOString();

/** What a connection and its last disconnection write (presence-tracker.ts): the index, then online, then offline. */
const connectAndLeave = async (store: Store, workspace: string, agent: string) => {
  await store.presence.addWorkspace(workspace);
  await store.presence.write('n1', workspace, [{ agent_id: agent, connections: 1, last_seen_at: at }]);
  await store.presence.write('n1', workspace, [{ agent_id: agent, connections: 0, last_seen_at: at }]);
};

const put = (store: Store, workspace: string, bytes: number) =>
  store.commit(workspace, { reads: [], writes: [{ key: 'doc', value: 'x'.repeat(bytes) }], events: [] });

/**
 * The memory presence used to keep every agent and workspace that ever connected, outside the store's bound: with a
 * 4 MiB store full, 16,000 connect-only clients (a new workspace each) a round took the heap from 41.6 to 52.9 to
 * 66.7 MB. What it knows of offline agents and of idle workspace names is now counted within the bound, and
 * forgotten, oldest first, when presence or a write needs the room.
 */
describe('the memory store’s presence within its bound', () => {
  it('forgets the oldest offline agents and idle workspace names, never a connected agent', async () => {
    const store = createMemoryStore({ eventRetention: 100, storeBytes: BOUND });
    const now = Date.now();
    await store.presence.beat('n1', now, TTL_MS);
    await store.presence.addWorkspace('busy');
    await store.presence.write('n1', 'busy', [{ agent_id: 'stays', connections: 1, last_seen_at: at }]);
    for (let i = 0; i < 1_000; i++) await connectAndLeave(store, `ws-${i}`, `a${i}`);

    const listed = await store.presence.workspaces();
    // About 800 bytes each: some 50 of the 1,000 fit beside nothing else.
    expect(listed.length).toBeLessThan(60);
    expect(listed.length).toBeGreaterThan(30);
    expect(listed).toContain('busy');
    expect(listed).toContain('ws-999');
    expect(listed).not.toContain('ws-0');
    expect((await store.presence.read('busy', now)).get('stays')).toEqual({ online: true, last_seen_at: at });
    expect((await store.presence.read('ws-999', now)).get('a999')).toEqual({ online: false, last_seen_at: at });
    // Forgotten: read as an agent nobody saw.
    expect((await store.presence.read('ws-0', now)).size).toBe(0);

    // A write that needs the room takes it from the oldest; its own workspace stays listed once it holds something.
    expect(await put(store, 'data', 20_000)).toMatchObject({ ok: true });
    await store.presence.addWorkspace('data');
    const after = await store.presence.workspaces();
    expect(after.length).toBeLessThan(listed.length - 15);
    expect(after).toEqual(expect.arrayContaining(['busy', 'ws-999', 'data']));
    for (let i = 0; i < 1_000; i++) await connectAndLeave(store, `later-${i}`, `b${i}`);
    expect(await store.presence.workspaces()).toEqual(expect.arrayContaining(['busy', 'data']));

    // What presence cannot give up is not given: a write larger than the room left is refused, within the bound.
    await expect(put(store, 'more', BOUND)).rejects.toMatchObject({
      details: { kind: 'memoryStoreBytes', limit: BOUND },
    });
    const refused = await put(store, 'more', 30_000).catch((err: unknown) => err);
    expect(refused).toMatchObject({ details: { kind: 'memoryStoreBytes' } });
    expect((refused as { details: { used: number } }).details.used).toBeLessThanOrEqual(BOUND);
  });

  it('keeps knowing offline agents while the store has room', async () => {
    const store = createMemoryStore({ eventRetention: 100, storeBytes: 10 * 1024 * 1024 });
    await store.presence.beat('n1', Date.now(), TTL_MS);
    for (let i = 0; i < 1_000; i++) await connectAndLeave(store, `ws-${i}`, `a${i}`);
    expect(await store.presence.workspaces()).toHaveLength(1_000);
    expect((await store.presence.read('ws-0', Date.now())).get('a0')).toEqual({ online: false, last_seen_at: at });
  });
});
