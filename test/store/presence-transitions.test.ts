import type { Caller } from '@planhub/shared';
import type { Store } from '@planhub/server';
import pino from 'pino';
import { describe, expect } from 'vitest';
import { createPresenceTracker, type PresenceTracker } from '../../server/src/presence/presence-tracker.ts';
import type { PresenceBackend } from '../../server/src/store/presence/presence-backend.ts';
import { eventually } from '../helpers/eventually.ts';
import { presenceChanges, twoStores } from '../helpers/presence-taker.ts';
import { STORE_FIXTURE_KINDS } from '../helpers/stores.ts';
import { storeTest } from './conformance-support.ts';

/** Long enough that no grace ends and no sweep runs on its own: each test ends graces itself (`close`). */
const IDLE_HEARTBEAT_MS = 600_000;
const worker: Caller = { workspace: 'ws', agent_id: 'worker', role: 'agent' };
const log = pino({ level: 'silent' });

/**
 * A dashboard counts agent_online and agent_offline as transitions: each change of an agent's presence must be said
 * once, however many nodes see it and in whatever order they report it, and the log must end on what is true.
 */
describe.each(STORE_FIXTURE_KINDS)('presence transitions said once each (%s store)', (kind) => {
  const it = storeTest(kind);

  const tracker = (
    nodeId: string,
    store: Store,
    options: { heartbeatMs?: number; now?: () => number; backend?: PresenceBackend } = {},
  ): PresenceTracker =>
    createPresenceTracker({
      nodeId,
      backend: options.backend ?? store.presence,
      store,
      log,
      heartbeatMs: options.heartbeatMs ?? IDLE_HEARTBEAT_MS,
      stallAfterMs: 3_600_000,
      ...(options.now ? { now: options.now } : {}),
    });

  /**
   * The store's presence, where `next` (once) wraps the next question "does a live node hold a connection of the
   * agent?": what another node does around it is what the asking node races with.
   */
  const interleaved = (real: PresenceBackend) => {
    const hooks: { next?: (ask: () => Promise<boolean>) => Promise<boolean> } = {};
    const backend: PresenceBackend = {
      ...real,
      online: (...args) => {
        const hook = hooks.next;
        hooks.next = undefined;
        return hook ? hook(() => real.online(...args)) : real.online(...args);
      },
    };
    return { hooks, backend };
  };

  it('reports an agent offline once when its node, taken for dead during its grace, then ends that grace', async ({
    fixture,
  }) => {
    const [storeA, storeB] = await twoStores(fixture, kind);
    // Node A stalls: it neither beats nor ends the grace until its close() below, as an event loop held up by load.
    const a = tracker('node-a', storeA);
    // Node B's clock is past the lapse of A's heartbeat (three beats), so its first sweep takes A for dead.
    const b = tracker('node-b', storeB, { heartbeatMs: 20, now: () => Date.now() + 4 * IDLE_HEARTBEAT_MS });
    try {
      a.connected(worker);
      await eventually(async () => expect(await presenceChanges(storeB)).toEqual([['agent_online', null]]));
      a.disconnected(worker);
      b.start();
      await eventually(async () =>
        expect(await presenceChanges(storeB)).toEqual([
          ['agent_online', null],
          ['agent_offline', 'node_lost'],
        ]),
      );
      await b.close();
      // A resumes and its grace ends (close ends it at once, as its timer would).
      await a.close();
    } finally {
      await b.close();
      await a.close();
    }
    expect(await presenceChanges(storeB)).toEqual([
      ['agent_online', null],
      ['agent_offline', 'node_lost'],
    ]);
  });

  it('reports an agent offline once when its last connections on two nodes close at once', async ({ fixture }) => {
    const [storeA, storeC] = await twoStores(fixture, kind);
    const { hooks, backend } = interleaved(storeA.presence);
    const a = tracker('node-a', storeA, { backend });
    const c = tracker('node-c', storeC);
    try {
      a.connected(worker);
      await eventually(async () => expect(await presenceChanges(storeC)).toEqual([['agent_online', null]]));
      c.connected(worker);
      a.disconnected(worker);
      c.disconnected(worker);
      // A has written its entry (no connection) and asks about the others: C's grace ends first, and C, finding A
      // without a connection, reports the agent offline before A does.
      hooks.next = async (ask) => {
        await c.close();
        return ask();
      };
      await a.close();
      expect(hooks.next, 'the interleaving ran').toBeUndefined();
    } finally {
      await a.close();
      await c.close();
    }
    expect(await presenceChanges(storeC)).toEqual([
      ['agent_online', null],
      ['agent_offline', 'disconnected'],
    ]);
  });

  it('never ends on offline when the agent connects to another node while its last disconnection is reported', async ({
    fixture,
  }) => {
    const [storeA, storeC] = await twoStores(fixture, kind);
    const { hooks, backend } = interleaved(storeA.presence);
    const a = tracker('node-a', storeA, { backend });
    const c = tracker('node-c', storeC);
    try {
      a.connected(worker);
      await eventually(async () => expect(await presenceChanges(storeC)).toEqual([['agent_online', null]]));
      a.disconnected(worker);
      // A has found no other node holding the agent; before it reports that, the agent connects to C.
      hooks.next = async (ask) => {
        const answer = await ask();
        c.connected(worker);
        // C keeps its connection: closing the tracker only waits for its transition.
        await c.close();
        return answer;
      };
      await a.close();
      expect(hooks.next, 'the interleaving ran').toBeUndefined();
    } finally {
      await a.close();
      await c.close();
    }
    expect(await presenceChanges(storeC)).toEqual([['agent_online', null]]);
    expect((await storeC.presence.read('ws', Date.now())).get('worker')?.online).toBe(true);
  });
});
