import type { NewEvent } from '@planhub/shared';
import type { Logger } from 'pino';
import type { PresenceBackend } from '../store/presence/presence-backend.ts';
import type { Store } from '../store/store.ts';
import { findStalls } from '../tools/stall-scan.ts';
import { stepStalled } from './presence-events.ts';
import type { Stall } from './stalls.ts';

/** A claim outlives any stall it dedupes: a stall is reported once, not once a day. */
const STALL_CLAIM_MS = 7 * 24 * 3600 * 1000;

export interface StallCheckOptions {
  store: Store;
  backend: PresenceBackend;
  log: Logger;
  stallAfterMs: number;
  now: () => number;
  iso: () => string;
  /** Workspaces with a live connection on this node: the ones it checks. */
  served: ReadonlyMap<string, number>;
}

/**
 * The stall part of a node's sweep. Stalls are found by each node in the workspaces it serves; a shared claim per
 * (plan, step, start) makes exactly one node report each.
 */
export const createStallCheck = (options: StallCheckOptions) => {
  const { store, backend, log, stallAfterMs, now, iso, served } = options;
  const stallCheckMs = Math.min(stallAfterMs / 2, 10_000);
  /**
   * A full pass over a workspace's agents takes this many sweeps (30 by default: 5 minutes of 10 s sweeps), so a
   * stall is reported at most about half the stall time late, and no sweep reads more than its share.
   */
  const stallPages = Math.max(1, Math.floor(stallAfterMs / 2 / stallCheckMs));
  /** Per workspace, the agent the next sweep starts from (node-local: nodes may read the same page; claims dedupe). */
  const stallCursor = new Map<string, number>();
  let lastStallCheck = 0;
  const append = async (workspace: string, event: NewEvent) => {
    await store.commit(workspace, { reads: [], writes: [], events: [event] });
  };

  return async () => {
    if (now() - lastStallCheck < stallCheckMs) return;
    lastStallCheck = now();
    for (const cursor of stallCursor.keys()) if (!served.has(cursor)) stallCursor.delete(cursor);
    for (const workspace of served.keys()) {
      let stalls: Stall[];
      try {
        const scan = await findStalls(store, workspace, now(), stallAfterMs, {
          from: stallCursor.get(workspace) ?? 0,
          pages: stallPages,
        });
        stallCursor.set(workspace, scan.next);
        stalls = scan.stalls;
      } catch (err) {
        log.debug({ err, workspace }, 'stall scan failed; the next sweep retries');
        continue;
      }
      for (const stall of stalls) {
        const claim = `stall:${JSON.stringify([workspace, stall.plan.plan_id, stall.step.id, stall.step.started_at ?? ''])}`;
        if (await backend.claim(claim, STALL_CLAIM_MS))
          await append(workspace, stepStalled(workspace, stall, iso(), stallAfterMs));
      }
    }
  };
};
