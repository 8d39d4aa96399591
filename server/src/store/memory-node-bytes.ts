import { PlanHubError } from '@planhub/shared';
import type { EventTotals } from './memory-event-log.ts';

/**
 * The default bound, 1 GiB, chosen by measuring the heap per byte the memory store counts (Node 20, whose default
 * heap limit is 4,144 MiB on a 24 GB, 2-core machine; the heap after a full collection, against the store's own
 * count, for a node fed through its socket.io endpoint and for the store alone): 1.05 for
 * 400 KB plans in new workspaces (the flood that took the heap to 4.1 GB), 1.1 for thousands of tiny workspaces,
 * 1.05-1.2 for collections of short members, and 2.0, the worst, for text V8 keeps at two bytes a character (one
 * character past Latin-1 makes a whole JSON document so). So a full store takes at most about 2 GiB of heap, half
 * the default limit, which leaves the rest for connections, their queues and the collector's headroom. A node run
 * with a smaller heap (--max-old-space-size) should set about a quarter of it.
 */
export const MEMORY_STORE_BYTES_DEFAULT = 1024 * 1024 * 1024;

/**
 * What a workspace costs the heap before it holds anything (its maps, event log and request index), counted from
 * its first write so that many nearly empty workspaces count for what they take. Measured (Node 20): a workspace
 * holding one tiny document and one event takes 2.36 KB of heap, and counts 2.13 KB with this.
 */
export const WORKSPACE_BYTES = 2_048;

/**
 * The memory store's bound on what the whole node holds: documents, collections, remembered answers and events of
 * every workspace together (PLANHUB_MEMORY_STORE_BYTES). The per-workspace quota alone cannot protect the heap: a
 * client that names a new workspace for each call gets a fresh quota each time.
 *
 * Events already have their own budget (PLANHUB_MEMORY_EVENT_BYTES), past which the oldest are dropped, so they
 * never need refusing: a commit's events count only for what they add once that budget has dropped what it can.
 * Everything else can only be refused, since dropping a document would lose state.
 */
export interface NodeBytes {
  /** The bound, memoryStoreBytes; undefined when the node is unbounded. */
  readonly limit: number | undefined;
  /** Bytes of events kept in every workspace's log: each EventLog adds to it. */
  readonly events: EventTotals;
  /** What the node holds now, events included. */
  used(): number;
  /** Counts a change of what the node holds besides events (documents, collections, remembered answers). */
  changed(delta: number): void;
  /**
   * The refusal for a commit that would add `held` bytes besides events, and `events`, when the node would pass its
   * bound; a commit that frees bytes is never refused. What `reclaimFrom` may forget is forgotten first when that
   * makes room (and only then).
   */
  refusal(held: number, events: NewEventBytes): PlanHubError | undefined;
  /** Names what the node may forget to make room for a commit (counted in `changed` like the rest). */
  reclaimFrom(source: Reclaimable): void;
}

/**
 * Bytes the node holds that may be forgotten, oldest first, rather than refuse a commit: the memory presence's
 * knowledge of offline agents and of workspaces with nothing else in them (store/presence/presence-bound.ts).
 */
export interface Reclaimable {
  /** What it holds that may be forgotten. */
  bytes(): number;
  /** Forgets at least `bytes` of it (telling the node through `changed`), when it holds that much. */
  free(bytes: number): void;
}

/** A commit's events as the bound counts them. */
export interface NewEventBytes {
  /** All of them, in bytes as logged. */
  bytes: number;
  /** The last one, which its log will keep whatever the budget. */
  last: number;
  /** Its log's newest event now, which the last one replaces as the kept one. */
  replaced: number;
}

/**
 * What a commit's events add to the events kept: all of them while the total stays within the budget; past it the
 * budget drops old events, down to the budget or to each log's newest event, whichever is more.
 */
const eventGrowth = (totals: EventTotals, budget: number, events: NewEventBytes): number => {
  if (events.bytes === 0) return 0;
  const sum = totals.bytes + events.bytes;
  if (sum <= budget) return events.bytes;
  return Math.max(budget, totals.pinned - events.replaced + events.last) - totals.bytes;
};

export interface NodeByteLimits {
  /** The bound on everything the node holds; unbounded when absent. */
  storeBytes?: number | undefined;
  /** The event budget: past it old events are dropped, not new ones refused. */
  eventBytes?: number | undefined;
}

export const createNodeBytes = (limits: NodeByteLimits): NodeBytes => {
  const events: EventTotals = { bytes: 0, pinned: 0 };
  let held = 0;
  let reclaimable: Reclaimable | undefined;
  const eventBudget = limits.eventBytes ?? Number.POSITIVE_INFINITY;
  return {
    limit: limits.storeBytes,
    events,
    used: () => held + events.bytes,
    changed(delta) {
      held += delta;
    },
    refusal(heldNeeded, eventsNeeded) {
      const limit = limits.storeBytes;
      if (limit === undefined) return undefined;
      const needed = heldNeeded + eventGrowth(events, eventBudget, eventsNeeded);
      const over = held + events.bytes + needed - limit;
      if (needed <= 0 || over <= 0) return undefined;
      // Forgotten only when that makes room: a commit refused anyway costs nothing.
      if (reclaimable && reclaimable.bytes() >= over) {
        reclaimable.free(over);
        if (held + events.bytes + needed <= limit) return undefined;
      }
      return nodeFull(held + events.bytes, needed, limit);
    },
    reclaimFrom(source) {
      reclaimable = source;
    },
  };
};

/** Written for the agent that called and the operator it may ask: nothing was written, reads work, what helps. */
const nodeFull = (used: number, needed: number, limit: number) =>
  new PlanHubError(
    'RESOURCE_EXHAUSTED',
    `This PlanHub node's in-memory store holds ${used} bytes across all workspaces; this change needs ${needed} ` +
      `more, past its bound memoryStoreBytes (${limit}). Nothing was written; reads still work. Clearing todo ` +
      'lists and deleting tasks no longer needed frees room (writes that free bytes always apply), as does the ' +
      'removal of finished plans past PLANHUB_FINISHED_PLANS_KEPT. Retrying at once cannot help: ask an operator ' +
      'to raise PLANHUB_MEMORY_STORE_BYTES (with the heap, --max-old-space-size) or to run the node on the file ' +
      'or Redis store.',
    { kind: 'memoryStoreBytes', used, needed, limit },
  );
