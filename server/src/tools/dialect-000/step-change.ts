import { progressOf } from '@planhub/shared';
import { stepView } from '../../core/plans/plan-views.ts';
import type { StepChange } from '../../core/plans/step-status.ts';
import { changeStepStatus } from '../../core/plans/step-status.ts';
import type { CallContext } from '../context.ts';
import type { Settled } from '../dependents.ts';
import { isWaiter, settleDependents } from '../dependents.ts';
import { resolvePlan, savePlan } from '../plan-access.ts';

/** setStepStatus and completeStepWithOutput: the step changes, and when it ends its dependents settle atomically. */
export const applyStepChange = async (ctx: CallContext, planId: string | undefined, change: StepChange) => {
  const answer = await ctx.transact(async (tx) => {
    const now = ctx.services.now();
    const current = await resolvePlan(tx, ctx.caller, { plan_id: planId }, 'write');
    const outcome = changeStepStatus(current, change, now);
    tx.emit(...outcome.events);
    let settled: Settled = { now: [], pending: [] };
    if (outcome.ended) settled = await settleDependents(tx, outcome.plan, outcome.step, now);
    if (outcome.events.length > 0) await savePlan(tx, outcome.plan);
    return {
      plan_id: outcome.plan.plan_id,
      step: stepView(outcome.plan.steps.find((s) => s.id === change.step_id) ?? outcome.step),
      progress: progressOf(outcome.plan.steps),
      instruction: outcome.instruction,
      ...(outcome.warning ? { warning: outcome.warning } : {}),
      unblocked: [...settled.now, ...settled.pending],
    };
  });
  // The store has put each waiter a fan-in unblocked in its place, and null where it did not fire.
  return { ...answer, unblocked: (answer.unblocked as unknown[]).filter(isWaiter) };
};
