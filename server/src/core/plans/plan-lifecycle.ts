import type { NewEvent, Plan } from '@planhub/shared';
import { ENDED_STEP_STATUSES, FINISHED_PLAN_STATUSES, fail, progressOf } from '@planhub/shared';
import { copyPlan } from './plan-factory.ts';
import { planEvent } from './plan-events.ts';

export type ApprovalPolicy = 'owner-or-user' | 'user' | 'auto';

export interface PlanOutcome {
  plan: Plan;
  events: NewEvent[];
}

/**
 * startPlan: under `auto` the plan starts at once; otherwise it waits for a decision. Repeats change nothing, and a
 * repeat after the decision answers it (a rejected plan stays rejected), so a retried startPlan learns the outcome.
 * A new startPlan on a started plan is upstream's error; a retry of the one that started it (same request_id, e.g.
 * the SDK repeating a wait cut off by a node's shutdown) answers the approval instead.
 */
export const requestApproval = (
  current: Plan,
  message: string | undefined,
  policy: ApprovalPolicy,
  now: string,
  requestId?: string,
): PlanOutcome => {
  const retry = requestId !== undefined && current.approval_request_id === requestId;
  if (current.status === 'in_progress' && retry) return { plan: current, events: [] };
  if (current.status === 'in_progress')
    fail(
      'FAILED_PRECONDITION',
      `Plan already started. Proceed with setStepStatus. (Plan ${current.plan_id} was approved; report each step's ` +
        'honest outcome as you go.)',
    );
  if (current.status === 'awaiting_approval' || current.status === 'rejected') return { plan: current, events: [] };
  // Upstream's words: an ended plan is no longer the agent's active one.
  if (current.status !== 'pending')
    fail(
      'FAILED_PRECONDITION',
      `No active plan. Create a plan first with createPlan. (Plan ${current.plan_id} is ${current.status}; only a ` +
        'pending plan can be started.)',
    );
  const plan = copyPlan(current);
  plan.updated_at = now;
  if (message !== undefined) plan.approval_message = message;
  if (requestId !== undefined) plan.approval_request_id = requestId;
  if (policy === 'auto') return approve(plan, { by: 'policy:auto', role: 'system' }, now);
  plan.status = 'awaiting_approval';
  return {
    plan,
    events: [
      planEvent(plan, 'plan_approval_requested', null, { message: message ?? null, steps: stepList(plan) }, now),
    ],
  };
};

export interface Decider {
  by: string;
  role: string;
  reason?: string;
}

const requireAwaiting = (plan: Plan): void => {
  if (plan.status !== 'awaiting_approval')
    fail(
      'FAILED_PRECONDITION',
      `Plan ${plan.plan_id} is ${plan.status}, not awaiting approval; ` +
        (plan.status === 'pending' ? 'call startPlan first.' : 'there is nothing to decide.'),
    );
};

const decisionOf = (decider: Decider, now: string): NonNullable<Plan['decision']> => ({
  by: decider.by,
  role: decider.role,
  at: now,
  ...(decider.reason ? { reason: decider.reason } : {}),
});

const approve = (plan: Plan, decider: Decider, now: string): PlanOutcome => {
  plan.status = 'in_progress';
  plan.started_at = now;
  plan.decision = decisionOf(decider, now);
  return {
    plan,
    events: [
      planEvent(plan, 'plan_approved', null, { approved_by: decider.by, agent_id: plan.agent_id }, now, decider.by),
      planEvent(plan, 'plan_started', null, { message: plan.approval_message ?? null }, now),
    ],
  };
};

export const decideApproval = (current: Plan, approved: boolean, decider: Decider, now: string): PlanOutcome => {
  requireAwaiting(current);
  const plan = copyPlan(current);
  plan.updated_at = now;
  if (approved) return approve(plan, decider, now);
  plan.status = 'rejected';
  plan.completed_at = now;
  plan.decision = decisionOf(decider, now);
  return {
    plan,
    events: [
      planEvent(
        plan,
        'plan_rejected',
        null,
        { rejected_by: decider.by, agent_id: plan.agent_id, reason: decider.reason ?? null },
        now,
        decider.by,
      ),
    ],
  };
};

export type PlanEnd = 'completed' | 'failed' | 'cancelled';

const PLAN_END_EVENT = { completed: 'plan_completed', failed: 'plan_failed', cancelled: 'plan_cancelled' } as const;

/** The steps a plan ended with still open (only a plan completed with unfinished steps has any). */
export const unfinishedSteps = (plan: Plan) =>
  plan.steps
    .filter((s) => !ENDED_STEP_STATUSES.has(s.status))
    .map((s) => ({ step_id: s.id, sequence: s.sequence, description: s.description, status: s.status }));

/** The honest note on a plan completed with unfinished steps; undefined when every step ended. */
export const unfinishedWarning = (plan: Plan): string | undefined => {
  const open = unfinishedSteps(plan);
  return open.length === 0
    ? undefined
    : `The plan was marked completed with ${open.length} unfinished step(s) (` +
        open.map((s) => `${s.step_id} ${s.status}`).join(', ') +
        '), left as they were. If the goal was not fully met, say so: a plan whose goal failed ends with ' +
        'completePlan(status="failed").';
};

/**
 * completePlan. `completed` on a started plan is accepted even with unfinished steps, as the seed's own workflow
 * does: they stay as they were and the answer and the event carry a warning naming them. A plan that ends failed or
 * cancelled skips its unfinished steps, so agents waiting on them resolve with that outcome instead of hanging.
 */
export const endPlan = (current: Plan, status: PlanEnd, summary: string | undefined, now: string): PlanOutcome => {
  if (FINISHED_PLAN_STATUSES.has(current.status))
    fail('FAILED_PRECONDITION', `Plan ${current.plan_id} is already ${current.status}.`);
  // Upstream refuses both outcomes of work that never began; only `cancelled` drops a plan that was not started.
  if (status !== 'cancelled' && current.status !== 'in_progress')
    fail(
      'FAILED_PRECONDITION',
      `Cannot mark plan as '${status}' - plan was never started. Use 'cancelled' if the plan was rejected. ` +
        `Plan ${current.plan_id} is ${current.status}; drop it with completePlan(status="cancelled").`,
    );
  const plan = copyPlan(current);
  const events: NewEvent[] = [];
  if (status !== 'completed')
    plan.steps = plan.steps.map((read) => {
      if (ENDED_STEP_STATUSES.has(read.status)) return read;
      const step = { ...read, status: 'skipped' as const, result: `plan ${status}`, completed_at: now };
      events.push(planEvent(plan, 'step_skipped', step, { result: step.result, error: null }, now));
      return step;
    });
  plan.status = status;
  plan.completed_at = now;
  plan.updated_at = now;
  if (summary !== undefined) plan.summary = summary;
  const warning = unfinishedWarning(plan);
  const payload: Record<string, unknown> = { summary: summary ?? null, progress: progressOf(plan.steps) };
  if (warning !== undefined) Object.assign(payload, { warning, unfinished_steps: unfinishedSteps(plan) });
  events.push(planEvent(plan, PLAN_END_EVENT[status], null, payload, now));
  return { plan, events };
};

export const stepList = (plan: Plan) =>
  plan.steps.map((s) => ({ step_id: s.id, sequence: s.sequence, description: s.description }));
