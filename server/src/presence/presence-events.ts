import type { NewEvent } from '@planhub/shared';
import type { Stall } from './stalls.ts';

const base = (workspace: string, agent: string, timestamp: string) => ({
  timestamp,
  workspace,
  source_agent: agent,
  source_plan_id: null,
  source_plan_title: null,
  source_step_id: null,
  source_step_description: null,
  source_step_sequence: null,
});

export const agentOnline = (workspace: string, agent: string, at: string): NewEvent => ({
  event_type: 'agent_online',
  ...base(workspace, agent, at),
  payload: { last_seen_at: at },
});

/** `node_lost`: the node holding its connections stopped its heartbeat (killed), rather than the agent leaving. */
export const agentOffline = (
  workspace: string,
  agent: string,
  at: string,
  lastSeen: string,
  reason: 'disconnected' | 'node_lost',
): NewEvent => ({
  event_type: 'agent_offline',
  ...base(workspace, agent, at),
  payload: { last_seen_at: lastSeen, reason },
});

export const stepStalled = (workspace: string, stall: Stall, at: string, stallAfterMs: number): NewEvent => ({
  event_type: 'step_stalled',
  ...base(workspace, stall.agent_id, at),
  source_plan_id: stall.plan.plan_id,
  source_plan_title: stall.plan.title,
  source_step_id: stall.step.id,
  source_step_description: stall.step.description,
  source_step_sequence: stall.step.sequence,
  payload: {
    last_update_at: stall.since,
    stalled_for_ms: Date.parse(at) - Date.parse(stall.since),
    stall_after_ms: stallAfterMs,
  },
});
