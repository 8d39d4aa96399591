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

/**
 * The envelope of a change to an agent rather than to a plan's steps (todos, tasks, 002's mode): the step fields are
 * null, and so are the plan fields unless the change concerns one plan (a mode change made by a plan decision).
 */
export const agentEvent = (
  source: { workspace: string; agent_id: string; now: string },
  type: EventType,
  payload: Record<string, unknown>,
  plan?: Pick<Plan, 'plan_id' | 'title'>,
): NewEvent => ({
  event_type: type,
  timestamp: source.now,
  workspace: source.workspace,
  source_agent: source.agent_id,
  source_plan_id: plan?.plan_id ?? null,
  source_plan_title: plan?.title ?? null,
  source_step_id: null,
  source_step_description: null,
  source_step_sequence: null,
  payload,
});
