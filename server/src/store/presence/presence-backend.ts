import type { PlanHubError } from '@planhub/shared';

/** Where the nodes of a deployment share who is connected; the memory and Redis versions behave the same. */

export interface AgentPresence {
  online: boolean;
  /** Newest connection, call or disconnection any node recorded; null when none was. */
  last_seen_at: string | null;
}

/** One node's view of one agent in one workspace. */
export interface NodeEntry {
  agent_id: string;
  /** This node's live connections of the agent (0 once its last one closed). */
  connections: number;
  last_seen_at: string;
}

/** An agent a dead node held connections of, handed to the one node that reports it. */
export interface LostAgent {
  workspace: string;
  agent_id: string;
  last_seen_at: string;
}

export interface PresenceBackend {
  /** Records this node's entries for a workspace. */
  write(nodeId: string, workspace: string, entries: readonly NodeEntry[]): Promise<void>;
  /**
   * The node's heartbeat: its entries count as live until `nowMs + ttlMs`. True when the node was not in the live set:
   * its first beat, or its first after its heartbeat lapsed (say through a store outage or a stall longer than the
   * ttl), whether or not another node took it for dead meanwhile. Either way other nodes may have decided its agents
   * offline while its entries did not count (a taker moved them to offline ones; a last disconnection elsewhere found
   * no live node holding the agent), so the node must write them again and say its agents are online.
   */
  beat(nodeId: string, nowMs: number, ttlMs: number): Promise<boolean>;
  /** Every agent with an entry in the workspace; online when a live node holds a connection of it. */
  read(workspace: string, nowMs: number): Promise<Map<string, AgentPresence>>;
  /**
   * Whether a live node holds a connection of the agent: what a last disconnection, or a dead node's taker, decides
   * agent_offline on. It reads the agent's entries alone, since `read` reads every agent that ever connected to the
   * workspace. `exceptNode`: on a node other than this one (the asking node has written its own entry first).
   */
  online(workspace: string, agentId: string, nowMs: number, exceptNode?: string): Promise<boolean>;
  /**
   * The entries of nodes whose heartbeat lapsed, each returned to exactly one caller (who reports the agents that
   * were connected there) and kept as offline with their last_seen_at.
   */
  takeLost(nowMs: number): Promise<LostAgent[]>;
  /** True for exactly one caller per key until it expires (one step_stalled per stall, whichever node sees it). */
  claim(key: string, ttlMs: number): Promise<boolean>;
  /** The index of workspaces: written when a node first sees one, not on every call. */
  addWorkspace(workspace: string): Promise<void>;
  workspaces(): Promise<string[]>;
  /**
   * Stored entries found corrupt since the last call (INTERNAL, each naming its key), each once per backend: `read`,
   * `online` and `takeLost` skip them (no connection) rather than throw, and the caller logs them.
   */
  takeCorrupt(): PlanHubError[];
}

export const later = (a: string | null, b: string | null): string | null =>
  a === null || (b !== null && b > a) ? b : a;
