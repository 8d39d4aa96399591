import type { Plan, Step } from '@planhub/shared';
import { ENDED_STEP_STATUSES, FINISHED_PLAN_STATUSES } from '@planhub/shared';
import { endedOutcome } from '../core/dependencies/attach.ts';
import { stepNode } from '../core/dependencies/nodes.ts';
import { endPlan, type PlanEnd } from '../core/plans/plan-lifecycle.ts';
import { docKeys } from '../store/keys.ts';
import type { Tx } from '../store/transaction.ts';
import { releaseAwaited } from './awaited-steps.ts';
import { endOwnWaits, releaseWaiters, settleDependents, waitsOnSomething } from './dependents.ts';
import { savePlan } from './plan-access.ts';
import { decodeStep } from './plan-repository.ts';
import { loadWaitersOf, releaseWaiterCounts, waiterSet } from './step-waiters.ts';

/**
 * Ends a plan; the steps its end skipped, and those it never got, resolve whoever waits on them, in the same atomic
 * change.
 */
export const finishPlan = async (tx: Tx, current: Plan, status: PlanEnd, summary: string | undefined, now: string) => {
  const { plan, events } = endPlan(current, status, summary, now);
  tx.emit(...events);
  await settlePlanEnd(tx, current, plan, now);
  await savePlan(tx, plan);
  return plan;
};

/**
 * What every end of a plan owes its waiters, however the end was decided (a call that ends the plan, or seed 004's
 * last step ending): each step whose status changed from `before` settles its dependents, and waits on steps the
 * plan never got are released as skipped. The caller saves `plan` in the same commit.
 */
export const settlePlanEnd = async (tx: Tx, before: Plan, plan: Plan, now: string): Promise<void> => {
  for (const step of plan.steps)
    if (before.steps.find((s) => s.id === step.id)?.status !== step.status) await settleDependents(tx, plan, step, now);
  await releaseOpenSteps(tx, plan, now);
  await releaseAwaited(tx, plan, now);
};

/**
 * The steps with their own dependencies: a blocked step read as its brief (completePlan "completed" reads briefs)
 * carries none, and without them its waits could not be given up.
 */
const withDependencies = async (tx: Tx, planId: string, steps: readonly Step[]): Promise<Step[]> => {
  const briefs = steps.filter((s) => s.status === 'blocked' && s.blocked_by === undefined);
  if (briefs.length === 0) return [...steps];
  const keys = briefs.map((s) => docKeys.planStep(planId, s.id));
  const raws = await tx.getMany(keys);
  const full = new Map(briefs.map((s, i) => [s.id, raws[i] == null ? s : decodeStep(keys[i]!, raws[i]).step]));
  return steps.map((s) => full.get(s.id) ?? s);
};

/**
 * A plan completed with steps still open leaves them as they were (honest status), but a finished plan's steps can
 * no longer change: other plans' steps waiting on them receive `skipped` now, the outcome a wait registered after
 * the end gets at once (endedOutcome), and their own waits end (endOwnWaits). Until round 23 such waiters stayed blocked
 * until retention removed the plan, which a one-shot subagent's plan never reaches. The plan's own steps end with it.
 */
const releaseOpenSteps = async (tx: Tx, plan: Plan, now: string): Promise<void> => {
  const listed = plan.steps.filter((s) => !ENDED_STEP_STATUSES.has(s.status));
  if (listed.length === 0 || !FINISHED_PLAN_STATUSES.has(plan.status)) return;
  const open = await withDependencies(tx, plan.plan_id, listed);
  const nodes = open.map((s) => stepNode(plan.plan_id, s.id));
  const waiters = await loadWaitersOf(tx, nodes);
  for (const [i, step] of open.entries()) {
    if (waitsOnSomething(step)) await endOwnWaits(tx, plan, step);
    const list = waiters[i] ?? [];
    releaseWaiterCounts(tx, { node: nodes[i]!, set: waiterSet(plan.plan_id) }, list);
    const skipped = endedOutcome(plan, step) ?? step;
    await releaseWaiters(tx, plan, skipped, list, now, (w) => w.plan_id !== plan.plan_id);
  }
};
