import type { Waiter } from '@planhub/shared';
import { stepMessage } from '../../core/plans/instruction.ts';
import { stepAnswer } from '../../core/plans/plan-views.ts';
import type { StepChange } from '../../core/plans/step-status.ts';
import { changeStepStatus } from '../../core/plans/step-status.ts';
import type { CallContext } from '../context.ts';
import { settleDependents } from '../dependents.ts';
import { resolvePlan, savePlan } from '../plan-access.ts';

/** setStepStatus and completeStepWithOutput: the step changes, and when it ends its dependents settle atomically. */
export const applyStepChange = (ctx: CallContext, planId: string | undefined, change: StepChange) =>
  ctx.transact(async (tx) => {
    const now = ctx.services.now();
    const current = await resolvePlan(tx, ctx.caller, { plan_id: planId }, 'write');
    const outcome = changeStepStatus(current, change, now);
    tx.emit(...outcome.events);
    let unblocked: Waiter[] = [];
    if (outcome.ended) unblocked = await settleDependents(tx, outcome.plan, outcome.step, now);
    if (outcome.events.length > 0) await savePlan(tx, outcome.plan);
    const step = outcome.plan.steps.find((s) => s.id === change.step_id) ?? outcome.step;
    return {
      ...stepAnswer(outcome.plan, step, stepMessage(step)),
      instruction: outcome.instruction,
      ...(outcome.warning ? { warning: outcome.warning } : {}),
      unblocked,
    };
  });
