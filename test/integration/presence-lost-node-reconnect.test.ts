import type { Caller } from '@planhub/shared';
import type { Store } from '@planhub/server';
import pino from 'pino';
import { describe, expect } from 'vitest';
import { createPresenceTracker } from '../../server/src/presence/presence-tracker.ts';
import { eventually } from '../helpers/eventually.ts';
import { holdingCommits } from '../helpers/held-commits.ts';
import { presenceEvents, twoStores } from '../helpers/presence-taker.ts';
import { STORE_FIXTURE_KINDS } from '../helpers/stores.ts';
import { storeTest } from '../store/conformance-support.ts';

/** Long enough that node A never beats again on its own: B's clock is set past its lapse. */
const IDLE_HEARTBEAT_MS = 600_000;
const gone: Caller = { workspace: 'ws', agent_id: 'gone', role: 'agent' };
const worker: Caller = { workspace: 'ws', agent_id: 'worker', role: 'agent' };
const log = pino({ level: 'silent' });

/**
 * A dead node's taker decides each of its agents offline on the registrations current when it decides, its own
 * included: an agent that connected to the taker while the taker's sweep was reporting the dead node (a restarted
 * node taking its old self, or a node its agents failed over to) was never offline. Its entry used to be written
 * only once that sweep was over, so the sweep logged agent_offline (node_lost) and the entry agent_online after it.
 * test/multinode/presence-node-loss-reconnect.test.ts does the same with real processes.
 */
describe.each(STORE_FIXTURE_KINDS)(
  'presence of an agent back on the node that reports its old one (%s store)',
  (kind) => {
    const it = storeTest(kind);

    it('reports only the agent that did not come back', async ({ fixture }) => {
      const [storeA, storeB] = await twoStores(fixture, kind);
      const held = holdingCommits(storeB);
      const tracker = (nodeId: string, store: Store, heartbeatMs: number, now?: () => number) =>
        createPresenceTracker({
          nodeId,
          backend: store.presence,
          store,
          log,
          heartbeatMs,
          stallAfterMs: 3_600_000,
          ...(now ? { now } : {}),
        });
      // Node A dies holding both agents: it never beats again.
      const a = tracker('node-a', storeA, IDLE_HEARTBEAT_MS);
      // Node B's clock is past the lapse of A's heartbeat (three beats), so its first sweep takes A for dead.
      const b = tracker('node-b', held.store, 20, () => Date.now() + 4 * IDLE_HEARTBEAT_MS);
      try {
        // In this order, so B reports `gone` first (a node's agents are reported in the order their entries are stored).
        a.connected(gone);
        await eventually(async () => expect(await presenceEvents(storeB)).toHaveLength(1));
        a.connected(worker);
        await eventually(async () => expect(await presenceEvents(storeB)).toHaveLength(2));

        const reporting = held.holdNext((c) => c.events.some((e) => e.source_agent === 'gone'));
        b.start();
        await reporting.reached;
        // The worker is back, on B, while B's sweep reports A's agents.
        b.connected(worker);
        reporting.release();
        await eventually(async () => expect(await presenceEvents(storeB)).toHaveLength(3));
        await b.close();
      } finally {
        await b.close();
        await a.close();
      }
      expect(await presenceEvents(storeB)).toEqual([
        ['agent_online', 'gone', null],
        ['agent_online', 'worker', null],
        ['agent_offline', 'gone', 'node_lost'],
      ]);
    });
  },
);
