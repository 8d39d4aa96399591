import type { EventType, NewEvent, Plan, Step } from '@planhub/shared';

/** Builds seed 000's envelope for a change of `plan` (and `step`), by the plan's owner unless said otherwise. */
export const planEvent = (
  plan: Plan,
  type: EventType,
  step: Step | null,
  payload: Record<string, unknown>,
  now: string,
  sourceAgent: string = plan.agent_id,
): NewEvent => ({
  event_type: type,
  timestamp: now,
  workspace: plan.workspace,
  source_agent: sourceAgent,
  source_plan_id: plan.plan_id,
  source_plan_title: plan.title,
  source_step_id: step?.id ?? null,
  source_step_description: step?.description ?? null,
  source_step_sequence: step?.sequence ?? null,
  payload,
});
