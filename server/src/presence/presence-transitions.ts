import { PlanHubError } from '@planhub/shared';
import type { Logger } from 'pino';
import { documents } from '../store/documents/documents.ts';
import type { Store } from '../store/store.ts';
import { transact } from '../store/transact.ts';
import type { Tx } from '../store/transaction.ts';
import { throttledLog } from '../throttled-log.ts';
import { agentOffline, agentOnline } from './presence-events.ts';

/**
 * A full store refuses every transition while it lasts: one warning of each kind a minute, with the count of the rest.
 * Logged on each connect and disconnect it wrote two lines of ~870 bytes per connection (32,000 for 16,000).
 */
const FULL_LOG_MS = 60_000;

/**
 * agent_online and agent_offline, each appended in one commit with the agent's presence state (`presence:<agent>`),
 * which the commit reads checked. Whichever of several nodes reporting one change commits second re-reads the state,
 * finds it said, and appends nothing: two last disconnections on two nodes, or a grace that ends on a node another
 * node has just reported lost, give one agent_offline. A missing state says nothing (an agent not seen since the
 * state was kept), so the first transition is appended whatever it is.
 */
export const createPresenceTransitions = (store: Store, iso: () => string, log: Logger) => {
  const full = throttledLog(log, FULL_LOG_MS);
  const commit = async (workspace: string, agentId: string, body: (tx: Tx) => Promise<void>) => {
    try {
      await transact(store, workspace, body);
    } catch (err) {
      if (!(err instanceof PlanHubError)) throw err;
      // Given up rather than thrown: a dead node's taker retries what throws on every heartbeat, ahead of its reports
      // of every other agent and workspace and of its stall checks. A workspace at its byte quota refuses the event
      // and the state alike, so they still agree.
      // An expected refusal: its kind and figures, not a stack, throttled (see FULL_LOG_MS).
      if (err.code === 'RESOURCE_EXHAUSTED')
        full(
          'warn',
          { workspace, agent_id: agentId, reason: err.message, details: err.details },
          (err.details as { kind?: unknown } | undefined)?.kind === 'memoryStoreBytes'
            ? "presence change not logged: this node's in-memory store is full (PLANHUB_MEMORY_STORE_BYTES)"
            : 'presence change not logged: the workspace is full',
        );
      // INTERNAL: no retry can fix it (a corrupt presence state, named in the error, waits for an operator).
      else if (err.code === 'INTERNAL')
        log.error({ err, workspace, agent_id: agentId }, 'presence change not logged: the store cannot say it');
      else throw err;
    }
  };

  /**
   * The agent is connected on this node, whose entry is written. Commits even when the state already says online:
   * the version it moves makes an agent_offline decided meanwhile, on entries read before this node's, conflict and
   * be decided again on entries that include it. So the log never ends on offline while the agent is connected.
   */
  const online = async (workspace: string, agentId: string) => {
    await commit(workspace, agentId, async (tx) => {
      const key = documents.presence.key(agentId);
      if ((await tx.read(documents.presence, agentId))?.online === true) {
        tx.op({ op: 'bump', key });
        return;
      }
      const at = iso();
      tx.put(key, { online: true, at });
      tx.emit(agentOnline(workspace, agentId, at));
    });
  };

  /**
   * The agent's last connection on a node is gone (its entry written, or moved by the node's taker). `elsewhere`:
   * whether a live node still holds a connection of it, asked after the state is read, so that it sees every entry
   * written before the state's latest commit, whichever node made it.
   */
  const offline = async (
    workspace: string,
    agentId: string,
    lastSeen: string,
    reason: 'disconnected' | 'node_lost',
    elsewhere: () => Promise<boolean>,
  ) => {
    await commit(workspace, agentId, async (tx) => {
      if ((await tx.read(documents.presence, agentId))?.online === false || (await elsewhere())) return;
      const at = iso();
      tx.put(documents.presence.key(agentId), { online: false, at });
      tx.emit(agentOffline(workspace, agentId, at, lastSeen, reason));
    });
  };

  return { online, offline };
};
