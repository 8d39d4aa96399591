import { join } from 'node:path';
import { open as openLmdb } from 'lmdb';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { capturedLog, takeDeadNode } from '../helpers/presence-taker.ts';
import { fileStoreFixture } from '../helpers/stores.ts';

const BEAT_MS = 50;
const TTL_MS = BEAT_MS * 3;
/** The file store's presence table key of an entry (file-presence-journal.ts). */
const entryKey = (workspace: string, node: string, agent: string) => ['e', workspace, node, agent].join('\u001f');

/**
 * The file store keeps its presence entries on disk and reads them whole when it opens (the memory presence then
 * serves them). An entry of the wrong shape there used to be read as an agent of its own, with no last seen time.
 */
describe('a corrupt presence entry on disk (file store)', () => {
  const { dir, open, close } = fileStoreFixture();

  it.each([
    ['of the wrong shape', JSON.stringify({ agent_id: 'broken', connections: 'one' })],
    ['that is not JSON', '{"agent_id": "broken", conn'],
  ])('%s is skipped and named once; its dead node is still taken and its good agents reported', async (_, bad) => {
    const path = dir();
    const start = Date.now();
    const seen = new Date(start - 2 * TTL_MS).toISOString();
    const first = open(path);
    await first.presence.beat('node-dead', start - 2 * TTL_MS, TTL_MS);
    await first.presence.write('node-dead', 'ws', [
      { agent_id: 'fine', connections: 1, last_seen_at: seen },
      { agent_id: 'broken', connections: 1, last_seen_at: seen },
    ]);
    await close(first);

    const raw = openLmdb({ path: join(path, 'data'), maxDbs: 16 });
    try {
      const table = raw.openDB({ name: 'presence', encoding: 'string' });
      await table.put(entryKey('ws', 'node-dead', 'broken'), bad);
      // A stall report's claim that is not JSON either: the store opens all the same.
      await table.put(['c', 'ws:plan:step_1:0'].join('\u001f'), bad);
    } finally {
      await raw.close();
    }

    const store = open(path);
    const presence = await store.presence.read('ws', Date.now());
    expect([...presence.keys()]).toEqual(['fine']);
    expect(presence.get('fine')).toEqual({ online: false, last_seen_at: seen });

    const { log, lines } = capturedLog();
    await takeDeadNode(store, log, BEAT_MS, 8);
    await close(store);
    const after = openLmdb({ path: join(path, 'data'), maxDbs: 16 });
    try {
      const keys = [...after.openDB({ name: 'presence', encoding: 'string' }).getKeys()].map(String);
      expect(
        keys.filter((k) => k.includes('node-dead')),
        'the dead node taken, its corrupt entry too',
      ).toEqual([]);
    } finally {
      await after.close();
    }
    const complaints = lines.filter((l) => l.level >= 40);
    expect(complaints.map((l) => [l.level, l.err?.message])).toEqual([
      [50, expect.stringContaining('The stored presence entry of workspace "ws", node "node-dead", agent "broken"')],
    ]);
  });
  it('takes a node whose heartbeat on disk is not a number, instead of keeping it for good', async () => {
    const path = dir();
    const seen = new Date(Date.now() - 2 * TTL_MS).toISOString();
    const first = open(path);
    await first.presence.beat('node-dead', Date.now() - 2 * TTL_MS, TTL_MS);
    await first.presence.write('node-dead', 'ws', [{ agent_id: 'fine', connections: 1, last_seen_at: seen }]);
    await close(first);
    const raw = openLmdb({ path: join(path, 'data'), maxDbs: 16 });
    try {
      await raw.openDB({ name: 'presence', encoding: 'string' }).put(['l', 'node-dead'].join('\u001f'), 'abc');
    } finally {
      await raw.close();
    }

    const store = open(path);
    await takeDeadNode(store, pino({ level: 'silent' }), BEAT_MS);
  });
});
