import { createCorruptEntries } from './corrupt-entries.ts';
import type { AgentPresence, LostAgent, NodeEntry, PresenceBackend } from './presence-backend.ts';
import { later } from './presence-backend.ts';
import { createPresenceBound, type PresenceRoom } from './presence-bound.ts';
import { decodeNodeEntry } from './presence-entry.ts';

/** Everything a presence knows; the memory store keeps it in memory only, the file store also on disk. */
export interface PresenceState {
  /** workspace → node → agent → entry */
  entries: Map<string, Map<string, Map<string, NodeEntry>>>;
  liveUntil: Map<string, number>;
  claims: Map<string, number>;
  workspaces: Set<string>;
}

/**
 * Where a presence writes each change through to, so that it outlives the process (the file store's single node:
 * a restart must still report the agents a crash cut off, and not report a stall it reported before). Each call
 * settles once its change is durable.
 */
export interface PresenceJournal {
  load(): PresenceState;
  entries(workspace: string, nodeId: string, entries: readonly NodeEntry[]): Promise<void>;
  liveUntil(nodeId: string, until: number): Promise<void>;
  /** A dead node's entries are gone; `kept` are the offline entries written in their place. */
  nodeLost(nodeId: string, kept: ReadonlyArray<{ workspace: string; entry: NodeEntry }>): Promise<void>;
  claim(key: string, until: number): Promise<void>;
  workspace(workspace: string): Promise<void>;
}

const GONE = '';
/** What a read of a workspace presence knows nothing of finds (not added: a read must not grow the state). */
const NO_NODES: ReadonlyMap<string, ReadonlyMap<string, NodeEntry>> = new Map();

export const emptyState = (): PresenceState => ({
  entries: new Map(),
  liveUntil: new Map(),
  claims: new Map(),
  workspaces: new Set(),
});

/** A workspace's nodes in `s`, added empty when it has none yet. */
export const nodesOf = (s: PresenceState, workspace: string) => {
  let nodes = s.entries.get(workspace);
  if (!nodes) s.entries.set(workspace, (nodes = new Map<string, Map<string, NodeEntry>>()));
  return nodes;
};

/** A node's agents in a workspace of `s`, added empty when it has none yet. */
export const agentsOf = (s: PresenceState, workspace: string, node: string) => {
  const nodes = nodesOf(s, workspace);
  let agents = nodes.get(node);
  if (!agents) nodes.set(node, (agents = new Map<string, NodeEntry>()));
  return agents;
};

/**
 * Drops the entries of a loaded state that are not entries, each named in `corrupt`, so that every later use of the
 * state can trust it: checked once when the store opens rather than on every read.
 */
const dropCorrupt = (s: PresenceState, corrupt: ReturnType<typeof createCorruptEntries>) => {
  for (const [workspace, nodes] of s.entries)
    for (const [node, agents] of nodes)
      for (const [agent, entry] of agents) {
        const decoded = decodeNodeEntry(entry);
        // An entry stored under another agent would be read as that one's.
        const detail = !decoded.ok ? decoded.detail : entry.agent_id !== agent ? 'agent_id: not its key' : undefined;
        if (detail === undefined) continue;
        agents.delete(agent);
        corrupt.found(
          `of workspace ${JSON.stringify(workspace)}, node ${JSON.stringify(node)}, agent ${JSON.stringify(agent)}`,
          detail,
        );
      }
};

/**
 * One per memory or file store: nodes in one process that share the store share its presence too. `room`: the
 * memory store's bound, within which what it knows of offline agents is kept (presence-bound.ts); the file store
 * keeps it all, on disk (`journal`).
 */
export const createMemoryPresence = (journal?: PresenceJournal, room?: PresenceRoom): PresenceBackend => {
  const corrupt = createCorruptEntries();
  const s: PresenceState = journal?.load() ?? emptyState();
  dropCorrupt(s, corrupt);
  const bound = room && createPresenceBound(s, room);
  const done = Promise.resolve();
  const nodesIn = (workspace: string) => s.entries.get(workspace) ?? NO_NODES;
  return {
    write(nodeId, workspace, entries) {
      if (entries.length === 0) return done;
      const agents = agentsOf(s, workspace, nodeId);
      for (const e of entries) {
        const entry = { ...e };
        bound?.replaced(workspace, nodeId, agents.get(e.agent_id), entry);
        agents.set(e.agent_id, entry);
      }
      bound?.settle();
      return journal ? journal.entries(workspace, nodeId, entries) : done;
    },
    async beat(nodeId, nowMs, ttlMs) {
      // Absent (first beat, or taken for dead) or lapsed without a taker yet: either way not live until now.
      const wasLive = (s.liveUntil.get(nodeId) ?? 0) > nowMs;
      s.liveUntil.set(nodeId, nowMs + ttlMs);
      if (journal) await journal.liveUntil(nodeId, nowMs + ttlMs);
      return !wasLive;
    },
    read(workspace, nowMs) {
      const out = new Map<string, AgentPresence>();
      for (const [node, agents] of nodesIn(workspace)) {
        const live = (s.liveUntil.get(node) ?? 0) > nowMs;
        for (const e of agents.values()) {
          const known = out.get(e.agent_id) ?? { online: false, last_seen_at: null };
          out.set(e.agent_id, {
            online: known.online || (live && e.connections > 0),
            last_seen_at: later(known.last_seen_at, e.last_seen_at),
          });
        }
      }
      return Promise.resolve(out);
    },
    online(workspace, agentId, nowMs, exceptNode) {
      for (const [node, agents] of nodesIn(workspace))
        if (node !== exceptNode && (s.liveUntil.get(node) ?? 0) > nowMs && (agents.get(agentId)?.connections ?? 0) > 0)
          return Promise.resolve(true);
      return Promise.resolve(false);
    },
    async takeLost(nowMs) {
      const lost: LostAgent[] = [];
      const dead = [...s.liveUntil].filter(([, until]) => until <= nowMs).map(([node]) => node);
      for (const node of dead) {
        s.liveUntil.delete(node);
        const kept: Array<{ workspace: string; entry: NodeEntry }> = [];
        for (const [workspace, nodes] of s.entries) {
          const agents = nodes.get(node);
          if (!agents) continue;
          nodes.delete(node);
          const gone = agentsOf(s, workspace, GONE);
          for (const e of agents.values()) {
            bound?.removed(e);
            if (e.connections > 0) lost.push({ workspace, agent_id: e.agent_id, last_seen_at: e.last_seen_at });
            const before = gone.get(e.agent_id);
            const entry: NodeEntry = {
              agent_id: e.agent_id,
              connections: 0,
              last_seen_at: later(before?.last_seen_at ?? null, e.last_seen_at) ?? e.last_seen_at,
            };
            bound?.replaced(workspace, GONE, before, entry);
            gone.set(e.agent_id, entry);
            kept.push({ workspace, entry });
          }
        }
        bound?.settle();
        // The agents are reported whether or not the disk took it: if it did not, a restart reports them again
        // (a repeated agent_offline), where failing here would drop them from the report for good.
        await journal?.nodeLost(node, kept).catch(() => undefined);
      }
      return lost;
    },
    async claim(key, ttlMs) {
      const now = Date.now();
      const until = s.claims.get(key);
      if (until !== undefined && until > now) return false;
      s.claims.set(key, now + ttlMs);
      try {
        await journal?.claim(key, now + ttlMs);
      } catch (err) {
        // Not claimed after all: the next scan claims it again, rather than never report the stall.
        if (s.claims.get(key) === now + ttlMs) s.claims.delete(key);
        throw err;
      }
      return true;
    },
    addWorkspace(workspace) {
      if (s.workspaces.has(workspace)) return done;
      s.workspaces.add(workspace);
      bound?.indexed(workspace);
      bound?.settle();
      // Forgotten again if the disk refused it, so the caller's retry writes it.
      return journal
        ? journal.workspace(workspace).catch((err: unknown) => {
            s.workspaces.delete(workspace);
            throw err;
          })
        : done;
    },
    workspaces() {
      return Promise.resolve([...s.workspaces].sort());
    },
    takeCorrupt: () => corrupt.take(),
  };
};
