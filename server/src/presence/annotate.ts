import type { WorkspaceSnapshot } from '@planhub/shared';
import type { AgentPresence } from '../store/presence/presence-backend.ts';
import { stalledSteps } from './stalls.ts';

/** Adds presence (online, last_seen_at) to each agent and `stalled` to each stalled step of an overview, in place. */
export const annotateWorkspace = (
  snapshot: WorkspaceSnapshot,
  presence: ReadonlyMap<string, AgentPresence>,
  nowMs: number,
  stallAfterMs: number,
): WorkspaceSnapshot => {
  for (const agent of snapshot.agents) {
    const seen = presence.get(agent.agent_id);
    agent.online = seen?.online ?? false;
    agent.last_seen_at = seen?.last_seen_at ?? null;
  }
  for (const stall of stalledSteps(snapshot.agents, nowMs, stallAfterMs)) stall.step.stalled = true;
  return snapshot;
};
