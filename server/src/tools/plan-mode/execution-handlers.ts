import type { Plan } from '@planhub/shared';
import { progressOf } from '@planhub/shared';
import { decideModification, requestModification } from '../../core/plan-mode/modification.ts';
import { nextPlanModeStep, numericStepId, pendingModificationOf, planModeProgress } from '../../core/plan-mode/mode.ts';
import { modeChanged } from '../../core/plan-mode/mode-events.ts';
import { stateRefusal } from '../../core/plan-mode/state-refusal.ts';
import { completePlanModeStep, openSteps } from '../../core/plan-mode/step-complete.ts';
import { changeStepStatus } from '../../core/plans/step-status.ts';
import type { ToolHandlers } from '../context.ts';
import { finishPlan } from '../finish-plan.ts';
import { settleDependents } from '../dependents.ts';
import { savePlan } from '../plan-access.ts';
import { loadModeState, requireExecuting } from './mode-access.ts';

const nextMessage = (plan: Plan, done: number): string => {
  // The step itself, not a lookup by its id: with repeated ids the id alone may name another step.
  const next = nextPlanModeStep(plan);
  if (next) return `Step ${done} complete. Next: step ${numericStepId(next) ?? next.id}: ${next.description}`;
  if (openSteps(plan).length > 0)
    return `Step ${done} complete. The remaining steps wait on other agents and unblock by themselves; wait for their step_unblocked events.`;
  return `Step ${done} complete. All steps are done: call plan_complete with a summary.`;
};

const plan_step_complete: ToolHandlers['plan_step_complete'] = (ctx, args) =>
  ctx.transact(async (tx) => {
    const now = ctx.services.now();
    const current = requireExecuting(await loadModeState(tx, ctx.caller.agent_id), 'complete steps of');
    const outcome = completePlanModeStep(current, args.step_id, args.verification_result, now);
    tx.emit(...outcome.events);
    // Dependents (later steps of this plan, other agents' steps) settle in the same commit as the completion.
    const unblocked = (await settleDependents(tx, outcome.plan, outcome.step, now)).now;
    await savePlan(tx, outcome.plan);
    const plan = outcome.plan;
    return {
      status: 'step_completed' as const,
      plan_id: plan.plan_id,
      step_id: args.step_id,
      verification_result: args.verification_result,
      progress: planModeProgress(plan),
      unblocked: unblocked
        .filter((w) => w.plan_id === plan.plan_id)
        .flatMap((w) => {
          const step = plan.steps.find((s) => s.id === w.step_id);
          const id = step && numericStepId(step);
          return id === undefined ? [] : [id];
        }),
      message: nextMessage(plan, args.step_id),
    };
  });

const NOT_DONE = 'Not done: see the deviations of plan_complete.';

const plan_complete: ToolHandlers['plan_complete'] = (ctx, args) =>
  ctx.transact(async (tx) => {
    const { caller, services } = ctx;
    const now = services.now();
    const state = await loadModeState(tx, caller.agent_id);
    let plan = requireExecuting(state, 'complete');
    const pending = pendingModificationOf(plan);
    if (pending)
      stateRefusal(
        'FAILED_PRECONDITION',
        `A modification of step ${pending.step_id} is still waiting for the user's decision. Wait for the ` +
          'plan_modified event (or have it decided with plan_approve / plan_reject) before completing the plan.',
      );
    const open = openSteps(plan);
    const deviations = args.deviations ?? [];
    // Upstream completes a plan whatever its steps say; PlanHub accepts it too, and says so when steps were not done.
    const warning =
      open.length > 0 && deviations.length === 0
        ? `Steps ${open.map((s) => `${numericStepId(s) ?? s.id} (${s.status})`).join(', ')} were not complete; they ` +
          'are recorded as skipped. Next time complete them with plan_step_complete, or name them in deviations ' +
          'with the honest reason they were not done.'
        : undefined;
    // Dependents first, so skipping a step never wakes a later step only to skip it right after.
    for (const step of [...open].reverse()) {
      const skipped = changeStepStatus(plan, { step_id: step.id, status: 'skipped', result: NOT_DONE }, now);
      plan = skipped.plan;
      tx.emit(...skipped.events);
      await settleDependents(tx, plan, skipped.step, now);
    }
    // Ended as every plan is, so what waits on it is settled the same way (finish-plan.ts).
    const ended = await finishPlan(
      tx,
      { ...plan, details: { ...plan.details, deviations } },
      'completed',
      args.summary,
      now,
    );
    tx.emit(
      ...modeChanged(
        {
          workspace: caller.workspace,
          agent_id: caller.agent_id,
          by: caller.agent_id,
          from: 'executing',
          to: 'normal',
          goal: state.doc?.goal,
          plan: ended,
        },
        now,
      ),
    );
    return {
      status: 'plan_completed' as const,
      plan_id: ended.plan_id,
      summary: args.summary,
      deviations,
      mode: 'normal' as const,
      progress: progressOf(ended.steps),
      skipped_steps: open.map((s) => numericStepId(s) ?? s.id),
      ...(warning !== undefined ? { warning } : {}),
    };
  });

const plan_modify: ToolHandlers['plan_modify'] = (ctx, args) =>
  ctx.transact(async (tx) => {
    const { caller, services } = ctx;
    const now = services.now();
    const current = requireExecuting(await loadModeState(tx, caller.agent_id), 'modify');
    let { plan, events } = requestModification(current, args, caller.agent_id, now);
    // Under the "auto" policy a modification is approved at once, like a plan.
    const auto = services.config.approvalPolicy === 'auto';
    if (auto) {
      const decided = decideModification(plan, true, { by: 'policy:auto', role: 'system' }, now);
      plan = decided.plan;
      events = [...events, ...decided.events];
    }
    await savePlan(tx, plan);
    tx.emit(...events);
    return {
      status: auto ? ('modification_approved' as const) : ('modification_requested' as const),
      plan_id: plan.plan_id,
      step_id: args.step_id,
      reason: args.reason,
      new_description: args.new_description,
      awaiting_approval: !auto,
      message: auto
        ? `Step ${args.step_id} changed (approval policy "auto").`
        : `The change to step ${args.step_id} waits for the user's approval; you get a plan_modified event when it is ` +
          'decided. Meanwhile work on other steps, not this one. Do not poll.',
    };
  });

export const executionHandlers = { plan_step_complete, plan_complete, plan_modify } satisfies Partial<ToolHandlers>;
