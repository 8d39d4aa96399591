import type { EventType, Mode002, NewEvent, Plan } from '@planhub/shared';

/**
 * An event about an agent rather than one plan (mode_changed before any plan exists, todos_updated). `source_agent`
 * is whoever caused it, so a user's decision reaches the agent whose mode it changed.
 */
export const agentEvent = (
  workspace: string,
  sourceAgent: string,
  type: EventType,
  payload: Record<string, unknown>,
  now: string,
  plan?: Pick<Plan, 'plan_id' | 'title'>,
): NewEvent => ({
  event_type: type,
  timestamp: now,
  workspace,
  source_agent: sourceAgent,
  source_plan_id: plan?.plan_id ?? null,
  source_plan_title: plan?.title ?? null,
  source_step_id: null,
  source_step_description: null,
  source_step_sequence: null,
  payload,
});

export interface ModeChange {
  workspace: string;
  agent_id: string;
  from: Mode002;
  to: Mode002;
  goal?: string | undefined;
  by: string;
  plan?: Pick<Plan, 'plan_id' | 'title'> | undefined;
}

/** mode_changed, or nothing when the mode did not change (a repeat). */
export const modeChanged = (change: ModeChange, now: string): NewEvent[] =>
  change.from === change.to
    ? []
    : [
        agentEvent(
          change.workspace,
          change.by,
          'mode_changed',
          {
            agent_id: change.agent_id,
            from: change.from,
            to: change.to,
            goal: change.goal ?? null,
            plan_id: change.plan?.plan_id ?? null,
          },
          now,
          change.plan,
        ),
      ];
