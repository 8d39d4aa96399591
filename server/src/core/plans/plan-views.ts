import type { Plan, PlanView, Step, StepView } from '@planhub/shared';
import { progressOf, progressOfCounts } from '@planhub/shared';
import { type StepTally, tallyOf, totalOf } from './step-tally.ts';
import { unfinishedSteps, unfinishedWarning } from './plan-lifecycle.ts';
import { copyWithout } from '../copy-without.ts';
import { planModeView } from '../plan-mode/plan-mode-view.ts';

const DETAILS = ['details'] as const;

/**
 * A step as every 000 tool returns it; internal `details` are left out. The fields upstream always sends are present
 * and `null` when unset, so hosts written against upstream find them.
 */
export const stepView = (step: Step): StepView => {
  const view = copyWithout(step, DETAILS) as StepView;
  view.result = step.result ?? null;
  view.error = step.error ?? null;
  view.started_at = step.started_at ?? null;
  view.completed_at = step.completed_at ?? null;
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

/**
 * Upstream's current_step: the sequence of the step last set in_progress, kept after it ends (upstream sets it on
 * in_progress and never clears it), null until a step starts. Each in_progress stamps started_at, so the step
 * started last is the one with the newest started_at.
 */
export const currentStep = (plan: Plan): number | null => {
  let last: Step | undefined;
  for (const step of plan.steps)
    if (step.started_at !== undefined && (last?.started_at === undefined || step.started_at >= last.started_at))
      last = step;
  return last?.sequence ?? null;
};

/**
 * getPlanStatus's answer. A 002 plan adds `plan_mode`, the plan object its agent submitted: the only read a person
 * (or their dashboard) has of the approach, risks, files and verification they approve. Upstream's fields are as
 * they were; other dialects' plans answer exactly as before.
 */
export const planView = (plan: Plan): PlanView => {
  const mode = planModeView(plan);
  return {
    ...planHeader(plan),
    completed_at: plan.completed_at ?? null,
    summary: plan.summary ?? null,
    current_step: currentStep(plan),
    steps: plan.steps.map(stepView),
    received_outputs: planReceivedOutputs(plan),
    ...(plan.started_at ? { started_at: plan.started_at } : {}),
    ...(plan.decision ? { decision: plan.decision } : {}),
    ...(mode ? { plan_mode: mode } : {}),
  };
};

/**
 * The flat fields upstream answers a step change with, beside PlanHub's `step` view: setStepStatus, addStep,
 * addDependentStep and completeStepWithOutput all start their answers with this. `tally` counts the plan's steps,
 * for a plan read without all of them.
 */
export const stepAnswer = (plan: Plan, step: Step, message: string, tally: StepTally = tallyOf(plan.steps)) => ({
  plan_id: plan.plan_id,
  step_id: step.id,
  sequence: step.sequence,
  description: step.description,
  status: step.status,
  result: step.result ?? null,
  error: step.error ?? null,
  total_steps: totalOf(tally),
  progress: progressOfCounts(tally.counts),
  message,
  step: stepView(step),
});

/** completePlan's answer: upstream's fields, plus the warning and the open steps when it ended with some. */
export const planEndAnswer = (plan: Plan) => {
  const warning = unfinishedWarning(plan);
  return {
    plan_id: plan.plan_id,
    title: plan.title,
    status: plan.status,
    completed_at: plan.completed_at ?? null,
    summary: plan.summary ?? null,
    progress: progressOf(plan.steps),
    message: `Plan ${plan.status}.`,
    ...(warning !== undefined ? { warning, unfinished_steps: unfinishedSteps(plan) } : {}),
  };
};
