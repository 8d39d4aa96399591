import type { NodeEntry } from '../store/presence/presence-backend.ts';

/** This node's entry for one agent of a workspace (presence-tracker.ts keeps them). */
export type LocalEntry = NodeEntry & {
  dirty: boolean;
  /** Taken for dead while connected here (see `beat`): announced online again once written again. */
  retaken?: boolean;
  /** While the last disconnection waits out its grace (its report's timer). */
  grace?: NodeJS.Timeout | undefined;
};

/** An entry as stored: one in its grace is still connected as far as other nodes can tell. */
export const stored = (entry: LocalEntry): NodeEntry => ({
  agent_id: entry.agent_id,
  connections: entry.grace !== undefined ? Math.max(1, entry.connections) : entry.connections,
  last_seen_at: entry.last_seen_at,
});
