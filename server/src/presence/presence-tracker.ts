import type { CallAck, Caller, WorkspaceSnapshot } from '@planhub/shared';
import type { Logger } from 'pino';
import type { Store } from '../store/store.ts';
import type { Dispatch } from '../tools/dispatch.ts';
import { annotateWorkspace } from './annotate.ts';
import type { LostAgent, PresenceBackend } from '../store/presence/presence-backend.ts';
import { createPresenceTransitions } from './presence-transitions.ts';
import { stored, type LocalEntry } from './local-entry.ts';
import { createStallCheck } from './stall-check.ts';
import { isoClock } from '../iso-clock.ts';
import { throttledLog } from '../throttled-log.ts';

export interface PresenceOptions {
  nodeId: string;
  backend: PresenceBackend;
  store: Store;
  log: Logger;
  heartbeatMs: number;
  stallAfterMs: number;
  now?: () => number;
}

/**
 * Presence failures are logged at most once a minute, with the count of the rest (the stack at debug): while Redis is
 * out every heartbeat fails, and each one logged with the client's stack wrote 33 lines on one node in one outage,
 * which the store monitor already reports once when Redis goes and once when it is back.
 */
const FAILURE_LOG_MS = 60_000;

/**
 * One node's share of presence. It counts its own sockets per agent; the first connection of an agent anywhere and
 * its last disconnection everywhere (once it has not come back within a heartbeat) become agent_online /
 * agent_offline in the workspace log. Each is committed with the agent's presence state, read checked
 * (presence-transitions.ts), so every change is said exactly once however many nodes report it: a connection, a
 * grace's end, a dead node's taker and a node taken for dead that comes back all go through it. Last-call times are
 * kept in memory and flushed with the heartbeat, which also keeps the node's entries alive: when a node dies its
 * heartbeat lapses, its agents read as offline, and the first node to notice reports them. Stalls are found by each
 * node in the workspaces it serves; a shared claim per (plan, step, start) makes exactly one node report each.
 */
export const createPresenceTracker = (options: PresenceOptions) => {
  const { nodeId, backend, store, heartbeatMs, stallAfterMs } = options;
  const log = options.log.child({ module: 'presence' });
  const now = options.now ?? Date.now;
  const iso = isoClock(now);
  const ttlMs = heartbeatMs * 3;
  /** workspace → agent → this node's entry */
  const local = new Map<string, Map<string, LocalEntry>>();
  /** Workspaces with a live connection here (any role), and how many. */
  const served = new Map<string, number>();
  /** Workspaces written to the index (listWorkspaces) while served here; a failed write, or the sweep after the last
   * connection, forgets one, and its next first connection writes it again (kept for good, it grew without end). */
  const indexed = new Set<string>();
  let chain: Promise<unknown> = Promise.resolve();
  const failures = throttledLog(log, FAILURE_LOG_MS);
  const failed = (err: unknown) => {
    log.debug({ err }, 'presence update failed');
    failures('warn', { reason: err instanceof Error ? err.message : String(err) }, 'presence update failed');
  };
  /** Agents of dead nodes this node took over and has not yet reported offline. */
  const unreported: LostAgent[] = [];
  const transitions = createPresenceTransitions(store, iso, log);

  /** Transitions run one at a time, so an agent's online and offline are appended in the order they happened. */
  const serial = (task: () => Promise<void>) => {
    chain = chain.then(task).catch(failed);
    return chain;
  };
  const entryOf = (caller: Caller) => {
    let agents = local.get(caller.workspace);
    if (!agents) local.set(caller.workspace, (agents = new Map<string, LocalEntry>()));
    let entry = agents.get(caller.agent_id);
    if (!entry)
      agents.set(
        caller.agent_id,
        (entry = { agent_id: caller.agent_id, connections: 0, last_seen_at: iso(), dirty: false }),
      );
    return entry;
  };

  /**
   * The heartbeat. A node whose heartbeat lapsed while it lived (a store outage or a stall longer than the ttl) may
   * find its entries taken by another node, which reported its connected agents offline (`node_lost`), or, not taken
   * yet, its agents reported offline by a last disconnection elsewhere that did not count its entries: they are
   * written again by the next sweep and announced online again, or they would read offline until their next call.
   */
  const beat = async () => {
    if (!(await backend.beat(nodeId, now(), ttlMs))) return;
    for (const agents of local.values())
      for (const entry of agents.values())
        if (stored(entry).connections > 0) {
          entry.dirty = true;
          entry.retaken = true;
        }
  };
  /** After its entries were written again: agents connected here read online again in the log. */
  const announceRetaken = async (workspace: string, agents: Map<string, LocalEntry>) => {
    for (const entry of agents.values()) {
      if (!entry.retaken || entry.dirty) continue;
      entry.retaken = false;
      if (stored(entry).connections > 0) await transitions.online(workspace, entry.agent_id);
    }
  };

  const connected = (caller: Caller) => {
    served.set(caller.workspace, (served.get(caller.workspace) ?? 0) + 1);
    if (!indexed.has(caller.workspace)) {
      indexed.add(caller.workspace);
      void backend.addWorkspace(caller.workspace).catch((err: unknown) => {
        indexed.delete(caller.workspace);
        log.warn({ err }, 'workspace index write failed');
      });
    }
    if (caller.role !== 'agent') return;
    const entry = entryOf(caller);
    entry.connections++;
    entry.last_seen_at = iso();
    if (entry.connections !== 1) return;
    // Back within the grace of its last disconnection: it was never reported offline, nor stored as such.
    if (entry.grace !== undefined) {
      clearTimeout(entry.grace);
      entry.grace = undefined;
      return;
    }
    // The entry is written before the transition commits, so a last disconnection on another node that commits
    // after it sees the agent connected here (see presence-transitions.ts). It is written now, not in turn behind the
    // transitions and sweeps queued on `serial`: a dead node's taker decides its agents offline on the entries written
    // by then, and an agent back here while a sweep reports its old node (a restart) must be among them.
    const registered = register(caller.workspace, entry).then(
      () => true,
      (err: unknown) => {
        failed(err);
        return false;
      },
    );
    void serial(async () => {
      if (await registered) await transitions.online(caller.workspace, caller.agent_id);
    });
  };

  const register = async (workspace: string, entry: LocalEntry) => {
    // The entry counts only while the node's heartbeat is current; the first one may not have reached Redis yet.
    await beat();
    // Announced by the transition that follows, whether or not the beat found this node taken for dead.
    entry.retaken = false;
    await backend.write(nodeId, workspace, [stored(entry)]);
  };

  /**
   * Whether the agent is connected here (or in its grace), written yet or not: what this node's own offline
   * decisions also count, read at the moment they decide, so a connection that came in while the decision waited
   * its turn is never reported offline.
   */
  const connectedHere = (workspace: string, agentId: string) => {
    const entry = local.get(workspace)?.get(agentId);
    return entry !== undefined && stored(entry).connections > 0;
  };

  const disconnected = (caller: Caller) => {
    const left = (served.get(caller.workspace) ?? 1) - 1;
    if (left > 0) served.set(caller.workspace, left);
    else served.delete(caller.workspace);
    if (caller.role !== 'agent') return;
    const entry = entryOf(caller);
    entry.connections = Math.max(0, entry.connections - 1);
    entry.last_seen_at = iso();
    if (entry.connections !== 0) return;
    // Reported after a grace of one heartbeat: an agent back by then (a reconnect) was never offline, and its stored
    // entry still says connected, so neither event is written. A client reconnecting in a loop cannot flood the log.
    const grace = setTimeout(() => endGrace(caller.workspace, entry), heartbeatMs);
    grace.unref();
    entry.grace = grace;
  };

  /** A last disconnection's grace is over (or the node shuts down): reported offline unless it came back. */
  const endGrace = (workspace: string, entry: LocalEntry) => {
    clearTimeout(entry.grace);
    entry.grace = undefined;
    void serial(async () => {
      if (entry.connections !== 0) return;
      await backend.write(nodeId, workspace, [stored(entry)]);
      // Also when another node has taken this one for dead meanwhile and reported the agent (node_lost): the state
      // then says offline already, and nothing is appended.
      await transitions.offline(
        workspace,
        entry.agent_id,
        entry.last_seen_at,
        'disconnected',
        async () => entry.connections > 0 || backend.online(workspace, entry.agent_id, now(), nodeId),
      );
    });
  };

  const touched = (caller: Caller) => {
    if (caller.role !== 'agent') return;
    const entry = local.get(caller.workspace)?.get(caller.agent_id);
    if (!entry) return;
    entry.last_seen_at = iso();
    entry.dirty = true;
  };

  const checkStalls = createStallCheck({ store, backend, log, stallAfterMs, now, iso, served });

  /** Corrupt entries the backend skipped (each named once), logged here since the backend has no logger. */
  const logCorrupt = () => {
    for (const err of backend.takeCorrupt())
      log.error({ err }, 'presence entry skipped: corrupt, it counts as no connection');
  };

  const sweepOnce = async () => {
    await beat();
    for (const [workspace, agents] of local) {
      const dirty = [...agents.values()].filter((e) => e.dirty);
      for (const e of dirty) e.dirty = false;
      try {
        if (dirty.length > 0) await backend.write(nodeId, workspace, dirty.map(stored));
      } catch (err) {
        // Written by the next sweep instead, and announced then.
        for (const e of dirty) e.dirty = true;
        throw err;
      }
      await announceRetaken(workspace, agents);
      // One in its grace stays: a reconnect must find it, and its report will write it.
      for (const [id, e] of agents) if (e.connections === 0 && !e.dirty && e.grace === undefined) agents.delete(id);
      // Then the workspace (kept, every sweep walked all the node ever saw), unless an agent connected meanwhile.
      if (agents.size === 0 && local.get(workspace) === agents) local.delete(workspace);
    }
    for (const workspace of indexed) if (!served.has(workspace)) indexed.delete(workspace);
    // takeLost hands each dead node's agents to exactly one node, once: they stay here until reported, so a failed
    // read or append is retried on the next beat instead of losing the agent_offline for good.
    unreported.push(...(await backend.takeLost(now())));
    while (unreported.length > 0) {
      const lost = unreported[0] as LostAgent;
      // Back on this node (a restarted node takes its old self) or on another: not offline.
      await transitions.offline(
        lost.workspace,
        lost.agent_id,
        lost.last_seen_at,
        'node_lost',
        async () =>
          connectedHere(lost.workspace, lost.agent_id) || backend.online(lost.workspace, lost.agent_id, now()),
      );
      unreported.shift();
    }
    await checkStalls();
  };
  // What reads and takes found corrupt is logged after each sweep, one that failed too.
  const sweep = () => sweepOnce().finally(logCorrupt);
  /** One sweep at a time: on a slow store, ticks that find one still running are skipped rather than queued. */
  let sweeping = false;
  const tick = () => {
    if (sweeping) return;
    sweeping = true;
    void serial(sweep).finally(() => (sweeping = false));
  };

  let timer: NodeJS.Timeout | undefined;
  return {
    connected,
    disconnected,
    /** Starts the heartbeat (presence writes and the stall sweep). */
    start() {
      timer = setInterval(tick, heartbeatMs);
      timer.unref();
    },
    /** Records each call as a sign of life and adds presence and stalls to getWorkspace's answer. */
    wrap(inner: Dispatch): Dispatch {
      return async (site, raw) => {
        touched(site.caller);
        const ack: CallAck = await inner(site, raw);
        if (ack.ok && (raw as { tool?: unknown } | null)?.tool === 'getWorkspace') {
          const presence = await backend.read(site.caller.workspace, now()).catch(() => undefined);
          if (presence) annotateWorkspace(ack.result as WorkspaceSnapshot, presence, now(), stallAfterMs);
        }
        return ack;
      };
    },
    workspaces: () => backend.workspaces(),
    /** How many workspaces the node keeps agents of, and has written to the index: what its sweeps walk. */
    held: () => ({ workspaces: local.size, indexed: indexed.size }),
    async close() {
      clearInterval(timer);
      // A node shutting down reports its last disconnections now rather than never.
      // Entries in their grace stay in `local` until it ends (see sweep).
      for (const [workspace, agents] of local)
        for (const entry of agents.values()) if (entry.grace !== undefined) endGrace(workspace, entry);
      await chain;
      logCorrupt();
    },
  };
};

export type PresenceTracker = ReturnType<typeof createPresenceTracker>;
