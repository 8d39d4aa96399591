import type { Plan } from '@planhub/shared';
import { fail, PLAN_MODE_BLOCKED_TOOLS, progressOf } from '@planhub/shared';
import { planFromImplementationPlan, planEdges } from '../../core/plan-mode/build-plan.ts';
import type { PlanModeDoc } from '../../core/plan-mode/mode.ts';
import {
  blockedToolsIn,
  currentPlanModeStep,
  deriveMode,
  pendingModificationOf,
  planModeProgress,
} from '../../core/plan-mode/mode.ts';
import { modeChanged } from '../../core/plan-mode/mode-events.ts';
import { planModeId } from '../../core/plan-mode/plan-id.ts';
import { stateRefusal } from '../../core/plan-mode/state-refusal.ts';
import { renderPlanMarkdown } from '../../core/plan-mode/plan-markdown.ts';
import { planEvent } from '../../core/plans/plan-events.ts';
import { requestApproval, stepList } from '../../core/plans/plan-lifecycle.ts';
import type { ToolHandlers } from '../context.ts';
import { recordEdges } from '../dependency-graph.ts';
import { finishPlan } from '../finish-plan.ts';
import { loadAgent, savePlan } from '../plan-access.ts';
import { registerAgent } from '../planhub/agent-index.ts';
import { loadModeState, putModeDoc, type ModeState } from './mode-access.ts';

/** Says what entering plan mode did to the plan being executed, so the model does not report its steps as done. */
const supersededWarning = (plan: Plan): string => {
  const { completed, total } = progressOf(plan.steps);
  const prefix = `Plan ${plan.plan_id} ("${plan.title}") was being executed and is now cancelled`;
  // Every step done but plan_complete never called: nothing was skipped, only the plan's own ending is lost.
  if (completed === total)
    return `${prefix}, with all ${total} steps completed; finish a plan with plan_complete to record it as completed.`;
  return (
    `${prefix}, with ${completed} of ${total} steps completed; its unfinished steps were skipped. Account for that ` +
    'work in the new plan.'
  );
};

const plan_enter: ToolHandlers['plan_enter'] = (ctx, args) =>
  ctx.transact(async (tx) => {
    const { caller, services } = ctx;
    const now = services.now();
    const state = await loadModeState(tx, caller.agent_id);
    if (state.mode === 'plan')
      stateRefusal(
        'FAILED_PRECONDITION',
        `Already in plan mode (goal: "${state.doc?.goal ?? ''}"). Keep exploring with read-only tools, then present ` +
          'your plan with plan_exit.',
        { current_goal: state.doc?.goal ?? null },
      );
    if (state.mode === 'awaiting_approval')
      stateRefusal(
        'FAILED_PRECONDITION',
        'A plan is awaiting approval. Approve or reject it before entering plan mode again. ' +
          `Plan ${state.plan?.plan_id ?? ''} waits for the user's decision: wait for the plan_approved or ` +
          'plan_rejected event.',
      );
    // Upstream lets an executing agent enter plan mode again and drops its approved plan. A PlanHub plan is shared
    // (other agents may wait on its steps), so it ends as cancelled in the same commit: its open steps resolve their
    // dependents as skipped instead of leaving them waiting on work nobody will do.
    const superseded =
      state.mode === 'executing' && state.plan
        ? await finishPlan(tx, state.plan, 'cancelled', `superseded: plan mode entered for "${args.goal}"`, now)
        : undefined;
    const doc: PlanModeDoc = {
      goal: args.goal,
      ...(args.scope !== undefined ? { scope: args.scope } : {}),
      entered_at: now,
    };
    putModeDoc(tx, caller.agent_id, doc);
    // An agent exploring in plan mode has no plan yet but belongs in the workspace overview.
    await registerAgent(tx, caller.agent_id);
    tx.emit(
      ...modeChanged(
        {
          workspace: caller.workspace,
          agent_id: caller.agent_id,
          by: caller.agent_id,
          from: state.mode,
          to: 'plan',
          goal: args.goal,
          ...(superseded ? { plan: superseded } : {}),
        },
        now,
      ),
    );
    return {
      status: 'entered' as const,
      mode: 'plan' as const,
      goal: args.goal,
      ...(args.scope !== undefined ? { scope: args.scope } : {}),
      blocked_tools: [...PLAN_MODE_BLOCKED_TOOLS],
      ...(superseded ? { cancelled_plan_id: superseded.plan_id, warning: supersededWarning(superseded) } : {}),
      message:
        'Plan mode on. Explore with read-only tools only (read_file, search_files, list_directory, read-only ' +
        'run_command); write_file, cron_create and cron_delete are blocked. Present the plan with plan_exit.',
    };
  });

/**
 * What plan_exit tells the model: upstream's words first (the host without a dashboard is where the user reviews the
 * plan, so the model must present it in full), then how the decision comes back.
 */
const planExitMessage = (planId: string, mode: string, markdown: string): string =>
  mode === 'awaiting_approval'
    ? `Plan saved and awaiting approval (plan_id: ${planId}).\nIMPORTANT: You MUST now present the full plan to the ` +
      'user in your response. Include all sections below in your message — the user cannot see tool results.\n\n' +
      `${markdown}\n\nDo not start executing: wait for the decision (plan_approved or plan_rejected event), then ` +
      'call plan_approve or plan_reject as the user said.'
    : `Plan saved and approved at once (plan_id: ${planId}; approval policy "auto"). Present it to the user in your ` +
      `response, then execute it step by step with plan_step_complete.\n\n${markdown}`;

/**
 * plan_exit outside plan mode. Upstream counts a presented or executing plan as "not in plan mode" and answers only
 * its sentence (an "Error: …" string, as the SDK shapes argument refusals); PlanHub's guidance for where the agent
 * really stands follows it.
 */
const notInPlanMode = (state: ModeState): string => {
  const upstream = 'Not in plan mode. Call plan_enter first.';
  const id = state.plan?.plan_id ?? '';
  if (state.mode === 'awaiting_approval')
    return `${upstream} Plan ${id} was already presented (mode awaiting_approval); wait for the decision.`;
  if (state.mode === 'executing')
    return `${upstream} Plan ${id} was already presented and approved (mode executing); change a step with plan_modify.`;
  return upstream;
};

const plan_exit: ToolHandlers['plan_exit'] = (ctx, args) =>
  ctx.transact(async (tx) => {
    const { caller, services } = ctx;
    const now = services.now();
    const state = await loadModeState(tx, caller.agent_id);
    if (state.mode !== 'plan' || !state.doc) fail('FAILED_PRECONDITION', notInPlanMode(state));
    const doc = state.doc!;
    const { limits } = services.config;
    if (args.plan.steps.length > limits.stepsPerPlan)
      fail(
        'RESOURCE_EXHAUSTED',
        `A plan holds at most ${limits.stepsPerPlan} steps; you sent ${args.plan.steps.length}.`,
      );
    const agent = await loadAgent(tx, caller.agent_id);
    if (agent.plans.filter((p) => !p.finished).length + 1 > limits.plansPerAgent)
      fail(
        'RESOURCE_EXHAUSTED',
        `You have too many unfinished plans (limit ${limits.plansPerAgent}); finish some first.`,
      );
    const created = planFromImplementationPlan({
      plan_id: planModeId(now, services.newId()),
      workspace: caller.workspace,
      agent_id: caller.agent_id,
      goal: doc.goal,
      scope: doc.scope,
      plan: args.plan,
      now,
    });
    const { plan, events } = requestApproval(created, args.plan.summary, services.config.approvalPolicy, now);
    await recordEdges(tx, planEdges(plan));
    await savePlan(tx, plan);
    putModeDoc(tx, caller.agent_id, { ...doc, plan_id: plan.plan_id } satisfies PlanModeDoc);
    const mode = deriveMode({ ...doc, plan_id: plan.plan_id }, plan);
    tx.emit(
      planEvent(created, 'plan_created', null, { steps: stepList(created), dialect: '002' }, now),
      ...events,
      ...modeChanged(
        {
          workspace: caller.workspace,
          agent_id: caller.agent_id,
          by: caller.agent_id,
          from: 'plan',
          to: mode,
          goal: doc.goal,
          plan,
        },
        now,
      ),
    );
    const markdown = renderPlanMarkdown(plan);
    return {
      status: 'plan_presented' as const,
      mode,
      plan_id: plan.plan_id,
      awaiting_approval: mode === 'awaiting_approval',
      markdown,
      plan: args.plan,
      steps: stepList(plan),
      message: planExitMessage(plan.plan_id, mode, markdown),
    };
  });

const plan_status: ToolHandlers['plan_status'] = (ctx, args) =>
  ctx.transact(async (tx) => {
    const state = await loadModeState(tx, args.agent_id ?? ctx.caller.agent_id);
    const { doc, plan, mode } = state;
    const pending = plan ? pendingModificationOf(plan) : undefined;
    const progress = plan ? planModeProgress(plan) : undefined;
    return {
      agent_id: state.agent_id,
      mode,
      blocked_tools: blockedToolsIn(mode),
      ...(mode !== 'normal' && doc ? { goal: doc.goal, ...(doc.scope !== undefined ? { scope: doc.scope } : {}) } : {}),
      ...(plan ? { plan_id: plan.plan_id, plan_status: plan.status } : {}),
      ...(mode === 'executing' && plan && progress
        ? {
            active_plan_id: plan.plan_id,
            active_plan_progress: {
              total_steps: progress.total_steps,
              completed_steps: progress.completed_steps,
              current_step: currentPlanModeStep(plan),
            },
          }
        : {}),
      ...(pending && mode === 'executing' ? { pending_modification: pending } : {}),
    };
  });

export const planModeHandlers = { plan_enter, plan_exit, plan_status } satisfies Partial<ToolHandlers>;
