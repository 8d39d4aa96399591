import { describe, expect } from 'vitest';
import { capturedLog, presenceEvents, takeDeadNode } from '../helpers/presence-taker.ts';
import { STORE_FIXTURE_KINDS } from '../helpers/stores.ts';
import { storeTest } from './conformance-support.ts';

const BEAT_MS = 50;
const TTL_MS = BEAT_MS * 3;

/**
 * An agent's presence state (`presence:<agent>`) that fails validation cannot say whether its change was said, and
 * no retry makes it readable: the change is given up once, with an error naming the key, instead of being retried on
 * every heartbeat (a warning each time) while the changes queued behind it (other agents of a dead node) wait forever.
 */
describe.each(STORE_FIXTURE_KINDS)('a corrupt presence state (%s store)', (kind) => {
  const it = storeTest(kind);

  it('is named once in an error, and the other agents of a dead node are still reported', async ({ fixture }) => {
    const store = fixture.open();
    await store.ping();
    const { log, lines } = capturedLog();

    // A dead node held a connection of each agent; the first one's state is corrupt.
    const start = Date.now();
    await store.presence.beat('node-dead', start - 2 * TTL_MS, TTL_MS);
    const seen = new Date(start - 2 * TTL_MS).toISOString();
    await store.presence.write('node-dead', 'ws', [
      { agent_id: 'broken', connections: 1, last_seen_at: seen },
      { agent_id: 'fine', connections: 1, last_seen_at: seen },
    ]);
    const outcome = await store.commit('ws', {
      reads: [],
      writes: [{ key: 'presence:broken', value: { online: 'yes' } }],
      events: [],
    });
    expect(outcome.ok).toBe(true);

    // Many beats later, the corrupt state has been named once and nothing retries it.
    await takeDeadNode(store, log, BEAT_MS, 8);
    const complaints = lines.filter((l) => l.level >= 40);
    expect(complaints).toHaveLength(1);
    expect(complaints[0]).toMatchObject({
      level: 50,
      err: { message: expect.stringContaining('The stored document presence:broken is corrupt') as string },
    });
    expect(await presenceEvents(store)).toEqual([['agent_offline', 'fine', 'node_lost']]);
  });
});
