import type { Store } from '@planhub/server';
import pino, { type Logger } from 'pino';
import { expect } from 'vitest';
import { eventually } from './eventually.ts';
import type { StoreFixture } from './stores.ts';
import { createPresenceTracker, type PresenceTracker } from '../../server/src/presence/presence-tracker.ts';

export interface LogLine {
  level: number;
  msg: string;
  err?: { message?: string };
}

/** A logger that keeps every line it writes, parsed: what a test says was (or was not) logged. */
export const capturedLog = (): { log: Logger; lines: LogLine[] } => {
  const lines: LogLine[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { log, lines };
};

const presenceLog = async (store: Store, workspace: string) =>
  (await store.readEvents(workspace, { count: 100 })).filter(
    (e) => e.event_type === 'agent_online' || e.event_type === 'agent_offline',
  );
const reasonOf = (e: { payload: unknown }) => (e.payload as { reason?: string }).reason ?? null;

/** A workspace's presence events as `[type, agent, reason or null]`, oldest first. */
export const presenceEvents = async (store: Store, workspace = 'ws') =>
  (await presenceLog(store, workspace)).map((e) => [e.event_type, e.source_agent, reasonOf(e)]);

/** The same for one agent's tests: `[type, reason or null]`. */
export const presenceChanges = async (store: Store, workspace = 'ws') =>
  (await presenceLog(store, workspace)).map((e) => [e.event_type, reasonOf(e)]);

/**
 * A node that holds no connection and, once started, beats every `heartbeatMs`: the one that takes a dead node and
 * reports its agents `node_lost`. Close it when done.
 */
export const presenceTaker = (store: Store, log: Logger, heartbeatMs: number): PresenceTracker =>
  createPresenceTracker({
    nodeId: 'node-taker',
    backend: store.presence,
    store,
    log,
    heartbeatMs,
    stallAfterMs: 3_600_000,
  });

/**
 * Runs a taker until the dead node's agent `fine` is reported `node_lost`, then `beatsAfter` more heartbeats (in which
 * nothing may be retried or logged again), and closes it.
 */
export const takeDeadNode = async (store: Store, log: Logger, heartbeatMs: number, beatsAfter = 0) => {
  const taker = presenceTaker(store, log, heartbeatMs);
  try {
    taker.start();
    await eventually(async () => expect(await presenceEvents(store)).toEqual([['agent_offline', 'fine', 'node_lost']]));
    await new Promise((resolve) => setTimeout(resolve, heartbeatMs * beatsAfter));
  } finally {
    await taker.close();
  }
};

/**
 * Two nodes' stores on Redis; the memory and file stores serve one node, where two trackers share its presence. Ready
 * before the trackers use them: presence writes to a Redis still connecting fail (the next sweep would retry).
 */
export const twoStores = async (fixture: StoreFixture, kind: string): Promise<[Store, Store]> => {
  const first = fixture.open();
  const stores: [Store, Store] = [first, kind.startsWith('redis') ? fixture.open() : first];
  await Promise.all(stores.map((s) => s.ping()));
  return stores;
};
