import type { Caller } from '@planhub/shared';
import type { Store } from '@planhub/server';
import pino from 'pino';
import { describe, expect } from 'vitest';
import { createPresenceTracker, type PresenceTracker } from '../../server/src/presence/presence-tracker.ts';
import { eventually } from '../helpers/eventually.ts';
import { presenceChanges } from '../helpers/presence-taker.ts';
import { STORE_FIXTURE_KINDS } from '../helpers/stores.ts';
import { storeTest } from './conformance-support.ts';

/** Long enough that no grace ends and no sweep runs on its own: the test ends B's grace itself (`close`). */
const IDLE_HEARTBEAT_MS = 600_000;
const BEAT_MS = 50;
/** How long node A stalls: far past its ttl (three beats), so every node counts its entries as dead meanwhile. */
const STALL_MS = 60_000;
const worker: Caller = { workspace: 'ws', agent_id: 'worker', role: 'agent' };
const log = pino({ level: 'silent' });

/**
 * A node whose heartbeat lapsed (it stalled past its ttl) but that no node took for dead yet still holds its
 * connections. While it is lapsed its entries do not count, so a last disconnection of the same agent on another node
 * reports the agent offline. When the stalled node beats again it must say the agent is online, as a node that was
 * taken does: otherwise the log ends on agent_offline while the agent is connected, until its next connection.
 */
describe.each(STORE_FIXTURE_KINDS)('presence after a lapse no node took (%s store)', (kind) => {
  const it = storeTest(kind);

  it('announces the agent online again when the stalled node beats again', async ({ fixture }) => {
    // Two nodes on Redis; the memory and file stores serve one node, where two trackers share its presence.
    const first = fixture.open();
    const stores = [first, kind.startsWith('redis') ? fixture.open() : first] as const;
    await Promise.all(stores.map((s) => s.ping()));
    // One clock for both nodes: the jump is A's stall as every node sees it.
    let ahead = 0;
    const now = () => Date.now() + ahead;
    const tracker = (nodeId: string, store: Store, heartbeatMs: number): PresenceTracker =>
      createPresenceTracker({ nodeId, backend: store.presence, store, log, heartbeatMs, stallAfterMs: 3_600_000, now });
    // A beats only once started, below: until then it is stalled. B never sweeps, so it never takes A for dead.
    const a = tracker('node-a', stores[0], BEAT_MS);
    const b = tracker('node-b', stores[1], IDLE_HEARTBEAT_MS);
    try {
      a.connected(worker);
      await eventually(async () => expect(await presenceChanges(stores[1])).toEqual([['agent_online', null]]));
      b.connected(worker);
      b.disconnected(worker);
      ahead = STALL_MS;
      // B's grace ends (close ends it at once, as its timer would): A's entry is lapsed, so B reports the agent.
      await b.close();
      expect(await presenceChanges(stores[1])).toEqual([
        ['agent_online', null],
        ['agent_offline', 'disconnected'],
      ]);

      a.start();
      await eventually(async () =>
        expect(await presenceChanges(stores[1])).toEqual([
          ['agent_online', null],
          ['agent_offline', 'disconnected'],
          ['agent_online', null],
        ]),
      );
      // Said once: later beats find A live and say nothing more.
      await new Promise((resolve) => setTimeout(resolve, BEAT_MS * 4));
      expect((await presenceChanges(stores[1])).length).toBe(3);
      expect((await stores[1].presence.read('ws', now())).get('worker')?.online).toBe(true);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
