import { fail, progressOf } from '@planhub/shared';
import { addStep as addStepToPlan, appendStep } from '../../core/plans/add-step.ts';
import { isValidationStep, newPlan } from '../../core/plans/plan-factory.ts';
import { activePlanExists } from '../../core/plans/plan-guards.ts';
import { stepList } from '../../core/plans/plan-lifecycle.ts';
import { planEvent } from '../../core/plans/plan-events.ts';
import { planEndAnswer, planView, stepAnswer, stepView } from '../../core/plans/plan-views.ts';
import { instructionFor } from '../../core/plans/instruction.ts';
import { tallyOf, totalOf, withAdded } from '../../core/plans/step-tally.ts';
import type { CallContext, ToolHandlers } from '../context.ts';
import { finishPlan } from '../finish-plan.ts';
import {
  appendTarget,
  loadAgent,
  loadPlan,
  planStatuses,
  resolveForAppend,
  resolvePlan,
  savePlan,
} from '../plan-access.ts';
import { startPlan } from './start-plan.ts';
import { applyStepChange } from './step-change.ts';
import { copyWithout } from '../../core/copy-without.ts';

/** What setStepStatus leaves out of the step change's answer. */
const UNBLOCKED = ['unblocked'] as const;

const createPlan: ToolHandlers['createPlan'] = (ctx, args) =>
  ctx.transact(async (tx) => {
    const { caller, services } = ctx;
    const now = services.now();
    const agent = await loadAgent(tx, caller.agent_id);
    const unfinished = agent.plans.filter((p) => !p.finished).map((p) => p.plan_id);
    const statuses = await planStatuses(tx, unfinished);
    const started = unfinished.find((_, i) => statuses[i] === 'in_progress' || statuses[i] === 'awaiting_approval');
    // The refusal counts the started plan's steps: their briefs do, without a document per step.
    if (started !== undefined) activePlanExists(await loadPlan(tx, started, 'brief'));
    const open = await Promise.all(unfinished.map((id) => loadPlan(tx, id)));
    if (args.steps.length > services.config.limits.stepsPerPlan)
      fail(
        'RESOURCE_EXHAUSTED',
        `A plan holds at most ${services.config.limits.stepsPerPlan} steps; you sent ${args.steps.length}.`,
      );
    // A plan that was never started is superseded, so "current plan" keeps meaning the newest one. Afterwards the new
    // plan is the agent's only unfinished one, so plansPerAgent cannot be exceeded here.
    for (const old of open) await finishPlan(tx, old, 'cancelled', 'superseded by a new plan', now);
    const plan = newPlan({
      plan_id: services.newId(),
      workspace: caller.workspace,
      agent_id: caller.agent_id,
      title: args.title,
      dialect: '000',
      steps: args.steps.map((description) => ({ description, validation_required: isValidationStep(description) })),
      now,
    });
    await savePlan(tx, plan);
    tx.emit(planEvent(plan, 'plan_created', null, { steps: stepList(plan), dialect: plan.dialect }, now));
    return {
      plan_id: plan.plan_id,
      title: plan.title,
      status: plan.status,
      steps: plan.steps.map(stepView),
      progress: progressOf(plan.steps),
      message: 'Plan created. Call startPlan to request approval.',
    };
  });

const setStepStatus: ToolHandlers['setStepStatus'] = (ctx, args) =>
  applyStepChange(ctx, 'setStepStatus', args.plan_id, {
    step_id: args.step_id,
    status: args.status,
    ...(args.result !== undefined ? { result: args.result } : {}),
    ...(args.error !== undefined ? { error: args.error } : {}),
  }).then((answer) => copyWithout(answer, UNBLOCKED));

const getPlanStatus: ToolHandlers['getPlanStatus'] = (ctx, args) =>
  ctx.transact(async (tx) => planView(await resolvePlan(tx, ctx.caller, args, 'read', 'getPlanStatus')));

const completePlan: ToolHandlers['completePlan'] = (ctx, args) =>
  ctx.transact(async (tx) => {
    const now = ctx.services.now();
    // `completed` leaves every step as it is and answers their statuses: their briefs are enough. `failed` and
    // `cancelled` skip the open steps, which are then written in full.
    const detail = args.status === 'completed' ? 'brief' : 'whole';
    const plan = await finishPlan(
      tx,
      await resolvePlan(tx, ctx.caller, args, 'write', 'completePlan', detail),
      args.status,
      args.summary,
      now,
    );
    return planEndAnswer(plan);
  });

const addStep: ToolHandlers['addStep'] = (ctx, args) =>
  ctx.transact(async (tx) => {
    const now = ctx.services.now();
    // Appending reads none of the other steps, only their tally; inserting re-sequences them: the whole plan.
    const appendTo = args.after_step_id === undefined ? await appendTarget(tx, ctx.caller, args.plan_id) : undefined;
    const read =
      appendTo === undefined
        ? { plan: await resolvePlan(tx, ctx.caller, args, 'write', 'addStep') }
        : await resolveForAppend(tx, ctx.caller, appendTo);
    const current = read.plan;
    const count = read.tally ? totalOf(read.tally) : current.steps.length;
    if (count + 1 > ctx.services.config.limits.stepsPerPlan)
      fail(
        'RESOURCE_EXHAUSTED',
        `Plan ${current.plan_id} already has ${count} steps (limit ${ctx.services.config.limits.stepsPerPlan}).`,
      );
    const { plan, step, events } =
      args.after_step_id === undefined
        ? appendStep(current, count, { description: args.description }, now)
        : addStepToPlan(current, { description: args.description, after_step_id: args.after_step_id }, now);
    await savePlan(tx, plan);
    tx.emit(...events);
    const tally = read.tally ? withAdded(read.tally, step) : tallyOf(plan.steps);
    return {
      ...stepAnswer(plan, step, `Step added as ${step.id} at position ${step.sequence} of ${count + 1}.`, tally),
      instruction: instructionFor(tally),
    };
  });

const listTools: ToolHandlers['listTools'] = (ctx: CallContext, args) =>
  Promise.resolve(ctx.services.catalog(args.dialect));

export const planCoreHandlers = {
  createPlan,
  startPlan,
  setStepStatus,
  getPlanStatus,
  completePlan,
  addStep,
  listTools,
} satisfies Partial<ToolHandlers>;
