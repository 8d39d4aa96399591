import type { Plan, PlanView, Step, StepView } from '@planhub/shared';
import { progressOf } from '@planhub/shared';

/** A step as every 000 tool returns it; internal `details` are left out unless a dialect asks for them. */
export const stepView = (step: Step): StepView => {
  const { details: _details, ...view } = step;
  return view;
};

/** received_outputs of the whole plan: every step's, merged (keys are "<agent_id>:<step_id>" and provides names). */
export const planReceivedOutputs = (plan: Plan): Record<string, unknown> =>
  Object.assign({}, ...plan.steps.map((s) => s.received_outputs ?? {})) as Record<string, unknown>;

/** What every answer about a plan starts with (getPlanStatus here, getWorkspace's plan summaries). */
export const planHeader = (plan: Plan) => ({
  plan_id: plan.plan_id,
  agent_id: plan.agent_id,
  title: plan.title,
  status: plan.status,
  dialect: plan.dialect,
  progress: progressOf(plan.steps),
  created_at: plan.created_at,
  updated_at: plan.updated_at,
});

export const planView = (plan: Plan): PlanView => ({
  ...planHeader(plan),
  steps: plan.steps.map(stepView),
  received_outputs: planReceivedOutputs(plan),
  ...(plan.started_at ? { started_at: plan.started_at } : {}),
  ...(plan.completed_at ? { completed_at: plan.completed_at } : {}),
  ...(plan.summary !== undefined ? { summary: plan.summary } : {}),
  ...(plan.decision ? { decision: plan.decision } : {}),
});
