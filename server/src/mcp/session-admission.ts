import type { SessionRegistry, SessionState } from './session-registry.ts';
import { agentKey } from './session-registry.ts';

/**
 * The wait a refusal names when every session in the way is busy (a request in progress, an open stream): nothing
 * says when one frees, and the longest a waitForEvents holds its session is 30 s.
 */
const BUSY_RETRY_MS = 30_000;

export interface AdmissionCaps {
  node: number;
  address: number;
  agent: number;
  /** A session this young is not ended for another: its host may not have sent its first request yet. */
  newSessionMs: number;
}

export type Cap = 'node' | 'address' | 'agent';

export type Admission =
  { admitted: true; ended: readonly SessionState[] } | { admitted: false; cap: Cap; retryAfterMs: number };

/**
 * Whether one more session of `agent` from `address` may open, ending at most one session per full cap to make
 * room. Never a busy one: a host with a request in progress or an open event stream is there. For the agent, its
 * least recently active idle session (a host that restarted is the same agent, and cannot know its old session
 * ids); for the address, which many agents share, only a session its host never used (or one past its idle time
 * that the sweep has not reached); for the node, only one past its idle time. Sessions younger than `newSessionMs`
 * are spared, so initializes sent at once cannot push each other out. The ended sessions have left the registry
 * when this returns: the caller reserves its place with no await in between.
 */
export const admitSession = (
  registry: SessionRegistry,
  agent: { workspace: string; agent_id: string },
  address: string,
  caps: AdmissionCaps,
): Admission => {
  const now = registry.now();
  const key = agentKey(agent);
  const all = [...registry.states()];
  const idle = all.filter((s) => !s.busy).sort((a, b) => a.idleSince - b.idleSince);
  const grown = (s: SessionState) => s.openedAt + caps.newSessionMs <= now;
  const expired = (s: SessionState) => s.expiresAt <= now;
  const ended: SessionState[] = [];

  /** When a session of the scope could be ended for this cap at the soonest. */
  const endableAt: Record<Cap, (s: SessionState) => number> = {
    agent: (s) => Math.min(s.expiresAt, s.openedAt + caps.newSessionMs),
    address: (s) => (s.used ? s.expiresAt : Math.min(s.expiresAt, s.openedAt + caps.newSessionMs)),
    node: (s) => s.expiresAt,
  };
  const endable: Record<Cap, (s: SessionState) => boolean> = {
    agent: grown,
    address: (s) => expired(s) || (!s.used && grown(s)),
    node: expired,
  };

  const check = (cap: Cap, count: number, limit: number, inScope: (s: SessionState) => boolean) => {
    if (count - ended.filter(inScope).length < limit) return undefined;
    const candidates = idle.filter((s) => inScope(s) && !ended.includes(s));
    const victim = candidates.find(endable[cap]);
    if (victim) {
      ended.push(victim);
      return undefined;
    }
    const soonest = Math.min(...candidates.map(endableAt[cap]));
    // Sessions still opening are not in the registry's states yet; they can be ended once they grew.
    const opening = count > all.filter(inScope).length ? now + caps.newSessionMs : Infinity;
    const at = Math.min(soonest, opening);
    return { admitted: false as const, cap, retryAfterMs: Math.max(1, Number.isFinite(at) ? at - now : BUSY_RETRY_MS) };
  };

  const refused =
    check('agent', registry.countFor(agent), caps.agent, (s) => s.agent === key) ??
    check('address', registry.countForAddress(address), caps.address, (s) => s.address === address) ??
    check('node', registry.size, caps.node, () => true);
  if (refused) return refused;
  for (const s of ended) void registry.end(s.id);
  return { admitted: true, ended };
};
