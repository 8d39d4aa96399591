import { textBytes } from '../../limits/text-bytes.ts';
import type { NodeBytes } from '../memory-node-bytes.ts';
import type { NodeEntry } from './presence-backend.ts';

/** What the memory store lends its presence: its bound, and whether it holds a workspace. */
export interface PresenceRoom {
  node: Pick<NodeBytes, 'changed' | 'used' | 'limit' | 'reclaimFrom'>;
  /** Whether the store holds anything of the workspace (its index name then stays, whatever presence forgets). */
  holds(workspace: string): boolean;
}

/** The part of the memory presence's state this bounds (memory-presence.ts's PresenceState). */
interface BoundState {
  /** workspace → node → agent → entry */
  entries: Map<string, Map<string, Map<string, NodeEntry>>>;
  workspaces: Set<string>;
}

/**
 * Heap an offline entry holds beside its names: its object, its time, its Map slot, its place here, and its
 * workspace's and node's maps (one entry per workspace is the worst case; a workspace of many entries counts them
 * more than once). With INDEX_NAME_BYTES, measured (Node 20) on a memory presence of 20,000 workspaces that each had
 * one agent connect and leave (names of 27 and 14 characters): 760-775 bytes of heap each, counted about 775.
 */
export const OFFLINE_ENTRY_BYTES = 600;
/** The same for a name in the workspace index (its Set slot and its place here): 125 bytes of heap, counted 127. */
export const INDEX_NAME_BYTES = 100;

interface Place {
  workspace: string;
  node: string;
}

/**
 * The memory store's presence within its bound (PLANHUB_MEMORY_STORE_BYTES). An agent connected on a live node must
 * be known; one known only as offline is there for its `last_seen_at` (getWorkspace), and a workspace name in the
 * index for listWorkspaces: kept, they took the heap up with every agent and workspace that ever connected (0.7 KB
 * each; 16,000 connect-only clients a round grew it by 11-14 MB while the store refused every write). So offline
 * entries and index names are counted in the store's bytes and, when presence or a commit needs room past the bound,
 * forgotten oldest first: an agent forgotten reads `last_seen_at: null` until it connects again, and a workspace
 * whose name goes with its last entry, and that the store holds nothing of, leaves listWorkspaces. A connected
 * agent's entry is neither counted nor forgotten (there are as many as live connections, which have their own
 * limits); nor is the name of a workspace the store holds, once found held (the store counts it, at 2 KiB).
 */
export const createPresenceBound = (s: BoundState, room: PresenceRoom) => {
  /** What may be forgotten, oldest first: offline entries (by their object) and index names. */
  const order = new Map<NodeEntry | string, Place | undefined>();
  let counted = 0;
  const cost = (item: NodeEntry | string, place: Place | undefined) =>
    typeof item === 'string'
      ? INDEX_NAME_BYTES + textBytes(item)
      : OFFLINE_ENTRY_BYTES +
        textBytes(item.agent_id) +
        textBytes(place?.workspace ?? '') +
        textBytes(place?.node ?? '');
  const count = (delta: number) => {
    counted += delta;
    room.node.changed(delta);
  };
  const add = (item: NodeEntry | string, place?: Place) => {
    order.set(item, place);
    count(cost(item, place));
  };
  /** No longer counted nor forgettable (still held, or gone otherwise). */
  const drop = (item: NodeEntry | string) => {
    if (!order.has(item)) return;
    const place = order.get(item);
    order.delete(item);
    count(-cost(item, place));
  };

  /** A workspace with no entry left: its name goes too, unless the store holds it. */
  const forgetName = (workspace: string) => {
    if (s.entries.has(workspace) || room.holds(workspace)) return;
    s.workspaces.delete(workspace);
    drop(workspace);
  };
  const forgetEntry = (entry: NodeEntry, { workspace, node }: Place) => {
    drop(entry);
    const nodes = s.entries.get(workspace);
    const agents = nodes?.get(node);
    if (!nodes || agents?.get(entry.agent_id) !== entry) return;
    agents.delete(entry.agent_id);
    if (agents.size > 0) return;
    nodes.delete(node);
    if (nodes.size > 0) return;
    s.entries.delete(workspace);
    forgetName(workspace);
  };
  /** Forgets the oldest of what may be forgotten until `bytes` are no longer counted. */
  const free = (bytes: number) => {
    const target = counted - bytes;
    for (const [item, place] of order) {
      if (counted <= target) return;
      if (typeof item !== 'string') forgetEntry(item, place as Place);
      else {
        // A name with entries goes with its last one; one the store holds stays, no longer counted here.
        drop(item);
        forgetName(item);
      }
    }
  };
  room.node.reclaimFrom({ bytes: () => counted, free });

  return {
    /** `after` replaces `before` as the node's entry of the agent in the workspace. */
    replaced(workspace: string, node: string, before: NodeEntry | undefined, after: NodeEntry) {
      if (before) drop(before);
      if (after.connections === 0) add(after, { workspace, node });
    },
    /** An entry removed from the state (a dead node's, moved by its taker). */
    removed: drop,
    /** A name added to the workspace index. */
    indexed: (workspace: string) => add(workspace),
    /** After a change: presence past the bound forgets what it may, down to it. */
    settle() {
      const over = room.node.used() - (room.node.limit ?? Number.POSITIVE_INFINITY);
      if (over > 0) free(over);
    },
  };
};

export type PresenceBound = ReturnType<typeof createPresenceBound>;
