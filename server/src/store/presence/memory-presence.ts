import type { AgentPresence, LostAgent, NodeEntry, PresenceBackend } from './presence-backend.ts';
import { later } from './presence-backend.ts';

interface Shared {
  /** workspace → node → agent → entry */
  entries: Map<string, Map<string, Map<string, NodeEntry>>>;
  liveUntil: Map<string, number>;
  claims: Map<string, number>;
  workspaces: Set<string>;
}

const GONE = '';

/** One per memory store: nodes in one process that share the store share its presence too. */
export const createMemoryPresence = (): PresenceBackend => {
  const s: Shared = { entries: new Map(), liveUntil: new Map(), claims: new Map(), workspaces: new Set() };
  const nodesOf = (workspace: string) => {
    let nodes = s.entries.get(workspace);
    if (!nodes) s.entries.set(workspace, (nodes = new Map<string, Map<string, NodeEntry>>()));
    return nodes;
  };
  const agentsOf = (workspace: string, node: string) => {
    const nodes = nodesOf(workspace);
    let agents = nodes.get(node);
    if (!agents) nodes.set(node, (agents = new Map<string, NodeEntry>()));
    return agents;
  };
  return {
    write(nodeId, workspace, entries) {
      const agents = agentsOf(workspace, nodeId);
      for (const e of entries) agents.set(e.agent_id, { ...e });
      return Promise.resolve();
    },
    beat(nodeId, nowMs, ttlMs) {
      s.liveUntil.set(nodeId, nowMs + ttlMs);
      return Promise.resolve();
    },
    read(workspace, nowMs) {
      const out = new Map<string, AgentPresence>();
      for (const [node, agents] of nodesOf(workspace)) {
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
    online(workspace, agentId, nowMs) {
      for (const [node, agents] of nodesOf(workspace))
        if ((s.liveUntil.get(node) ?? 0) > nowMs && (agents.get(agentId)?.connections ?? 0) > 0)
          return Promise.resolve(true);
      return Promise.resolve(false);
    },
    takeLost(nowMs) {
      const lost: LostAgent[] = [];
      const dead = [...s.liveUntil].filter(([, until]) => until <= nowMs).map(([node]) => node);
      for (const node of dead) {
        s.liveUntil.delete(node);
        for (const [workspace, nodes] of s.entries) {
          const agents = nodes.get(node);
          if (!agents) continue;
          nodes.delete(node);
          const gone = agentsOf(workspace, GONE);
          for (const e of agents.values()) {
            if (e.connections > 0) lost.push({ workspace, agent_id: e.agent_id, last_seen_at: e.last_seen_at });
            const kept = gone.get(e.agent_id);
            gone.set(e.agent_id, {
              agent_id: e.agent_id,
              connections: 0,
              last_seen_at: later(kept?.last_seen_at ?? null, e.last_seen_at) ?? e.last_seen_at,
            });
          }
        }
      }
      return Promise.resolve(lost);
    },
    claim(key, ttlMs) {
      const now = Date.now();
      const until = s.claims.get(key);
      if (until !== undefined && until > now) return Promise.resolve(false);
      s.claims.set(key, now + ttlMs);
      return Promise.resolve(true);
    },
    addWorkspace(workspace) {
      s.workspaces.add(workspace);
      return Promise.resolve();
    },
    workspaces() {
      return Promise.resolve([...s.workspaces].sort());
    },
  };
};
