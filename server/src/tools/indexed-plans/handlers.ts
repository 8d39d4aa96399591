import type { Plan } from '@planhub/shared';
import { FINISHED_PLAN_STATUSES, fail } from '@planhub/shared';
import { lastChangedPlanId } from '../../core/agents/agent-doc.ts';
import {
  changeTimeAfter,
  createIndexedPlan,
  planNotFound,
  indexedPlanView,
  updateIndexedStep,
} from '../../core/indexed-plans/indexed-plan.ts';
import { requireRoomForPlan } from '../../core/indexed-plans/plan-limit.ts';
import { readPlan } from '../live-plans.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ToolHandlers } from '../context.ts';
import { settleDependents } from '../dependents.ts';
import { settlePlanEnd } from '../finish-plan.ts';
import { loadAgent, savePlan } from '../plan-access.ts';
import { latestInWorkingDir, recordInWorkingDir, requireUpdatable } from './working-dir.ts';

/** Seed 004 names plans by id only; its own message for a missing one. */
const planById = async (tx: Tx, planId: string): Promise<Plan> => (await readPlan(tx, planId)) ?? planNotFound(planId);

const create_plan: ToolHandlers['create_plan'] = (ctx, args) =>
  ctx.transact(async (tx) => {
    const { caller, services } = ctx;
    const { limits } = services.config;
    if (args.steps.length > limits.stepsPerPlan)
      fail('RESOURCE_EXHAUSTED', `A plan holds at most ${limits.stepsPerPlan} steps; you sent ${args.steps.length}.`);
    const agent = await loadAgent(tx, caller.agent_id);
    requireRoomForPlan(agent, limits.plansPerAgent, caller.agent_id);
    const { plan, events } = createIndexedPlan({
      plan_id: services.newId(),
      workspace: caller.workspace,
      agent_id: caller.agent_id,
      title: args.title,
      steps: args.steps,
      working_dir: args.working_dir,
      now: changeTimeAfter(services.now(), agent),
    });
    await savePlan(tx, plan);
    recordInWorkingDir(tx, plan);
    tx.emit(...events);
    return {
      ok: true as const,
      plan_id: plan.plan_id,
      title: plan.title,
      steps_count: plan.steps.length,
      // Upstream's output models dump their unset error as null on success (supypowers: model_dump).
      error: null,
      status: plan.status,
    };
  });

const update_plan: ToolHandlers['update_plan'] = (ctx, args) =>
  ctx.transact(async (tx) => {
    const current = await planById(tx, args.plan_id);
    requireUpdatable(current, ctx.caller.agent_id, args.working_dir);
    const now = changeTimeAfter(ctx.services.now(), await loadAgent(tx, ctx.caller.agent_id));
    const outcome = updateIndexedStep(current, { index: args.step_index, status: args.status, notes: args.notes }, now);
    const reopened = FINISHED_PLAN_STATUSES.has(current.status) && !FINISHED_PLAN_STATUSES.has(outcome.plan.status);
    if (reopened)
      requireRoomForPlan(
        await loadAgent(tx, current.agent_id),
        ctx.services.config.limits.plansPerAgent,
        ctx.caller.agent_id,
      );
    if (outcome.changed) {
      tx.emit(...outcome.events);
      // Like setStepStatus and completePlan: the agents waiting on this step, and on steps the plan never got once
      // this step ended it, settle in the same atomic change.
      if (outcome.plan.status !== current.status && FINISHED_PLAN_STATUSES.has(outcome.plan.status))
        await settlePlanEnd(tx, current, outcome.plan, now);
      else if (outcome.ended) await settleDependents(tx, outcome.plan, outcome.step, now);
      await savePlan(tx, outcome.plan);
      recordInWorkingDir(tx, outcome.plan);
    }
    return {
      ok: true as const,
      plan_id: outcome.plan.plan_id,
      step_description: outcome.step.description,
      new_status: args.status,
      error: null,
      plan_status: outcome.plan.status,
      step_index: args.step_index,
    };
  });

const get_plan: ToolHandlers['get_plan'] = (ctx, args) =>
  ctx.transact(async (tx) => {
    if (args.plan_id !== undefined) return indexedPlanView(await planById(tx, args.plan_id));
    const agent = await loadAgent(tx, ctx.caller.agent_id);
    const own = lastChangedPlanId(agent, args.working_dir);
    const shared = args.working_dir === undefined ? undefined : await latestInWorkingDir(tx, args.working_dir);
    const ownChanged = agent.plans.find((p) => p.plan_id === own)?.changed_at ?? '';
    const planId =
      (shared && shared.changed_at >= ownChanged ? shared.plan_id : own) ??
      fail(
        'NOT_FOUND',
        args.working_dir === undefined
          ? 'No plans found. Create one with create_plan.'
          : `No plans found in working_dir ${args.working_dir}. Create one with create_plan, or omit working_dir.`,
      );
    return indexedPlanView(await planById(tx, planId));
  });

export const indexedPlanHandlers = { create_plan, update_plan, get_plan } satisfies Partial<ToolHandlers>;
