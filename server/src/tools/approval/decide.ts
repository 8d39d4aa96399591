import type { Caller, Plan } from '@planhub/shared';
import { fail, PlanHubError } from '@planhub/shared';
import { deriveMode, planModeStepView } from '../../core/plan-mode/mode.ts';
import { modeChanged } from '../../core/plan-mode/mode-events.ts';
import { stateRefusal } from '../../core/plan-mode/state-refusal.ts';
import { decideModification } from '../../core/plan-mode/modification.ts';
import { decideApproval } from '../../core/plans/plan-lifecycle.ts';
import type { ApprovalPolicy, Decider } from '../../core/plans/plan-lifecycle.ts';
import type { Tx } from '../../store/transaction.ts';
import type { CallContext } from '../context.ts';
import { savePlan } from '../plan-access.ts';
import { readModeDoc } from '../plan-mode/mode-access.ts';
import { leavePlanMode } from './leave-plan-mode.ts';
import { releaseRejected } from './release-rejected.ts';
import type { DecisionTarget } from './target.ts';
import { findDecisionTarget, waitsForDecision } from './target.ts';

/** Who may decide a plan's approval under the configured policy (docs/dialects.md, core model; docs/invariants.md, invariant 6). */
export const mayDecide = (caller: Caller, plan: Pick<Plan, 'agent_id'>, policy: ApprovalPolicy): boolean => {
  if (caller.role === 'dashboard') return false;
  if (caller.role === 'user') return true;
  return policy !== 'user' && caller.agent_id === plan.agent_id;
};

const refusal = (caller: Caller, plan: Plan, policy: ApprovalPolicy): string =>
  caller.role === 'dashboard'
    ? 'Dashboards are read-only; connect as a user to approve or reject plans.'
    : policy === 'user'
      ? `Plan ${plan.plan_id} must be decided by a user (approval policy "user"); relay your user's answer through them.`
      : `Plan ${plan.plan_id} belongs to agent ${plan.agent_id}; only its owner or a user can decide it.`;

const nothingToDecide = (plan: Plan, target: DecisionTarget): string =>
  target.modification === true
    ? `Plan ${plan.plan_id} has no modification waiting for a decision.`
    : `Plan ${plan.plan_id} is ${plan.status}, not awaiting approval; ` +
      (plan.status === 'pending' ? 'call startPlan first.' : 'there is nothing to decide.');

/** An agent rejecting its own nothing: no plan named, no modification asked for, and nothing found waiting. */
const leavesPlanMode = (caller: Caller, target: DecisionTarget, err: unknown): boolean =>
  err instanceof PlanHubError &&
  err.code === 'NOT_FOUND' &&
  caller.role === 'agent' &&
  target.plan_id === undefined &&
  target.modification !== true &&
  (target.agent_id === undefined || target.agent_id === caller.agent_id);

/** The owner's 002 mode follows its plan: when the decided plan is the one plan_exit made, announce the change. */
const modeEvents = async (tx: Tx, before: Plan, after: Plan, decider: Decider, now: string) => {
  if (after.dialect !== '002') return { events: [], mode: undefined };
  const doc = await readModeDoc(tx, after.agent_id);
  if (doc?.plan_id !== after.plan_id) return { events: [], mode: undefined };
  const to = deriveMode(doc, after);
  const change = {
    workspace: after.workspace,
    agent_id: after.agent_id,
    by: decider.by,
    from: deriveMode(doc, before),
    to,
    goal: doc.goal,
    plan: after,
  };
  return { events: modeChanged(change, now), mode: to };
};

/**
 * plan_approve / plan_reject: the decision on a plan awaiting approval (any dialect's: startPlan, plan_exit) or on
 * an executing plan's pending plan_modify request, whichever the target waits for.
 */
export const decide = (ctx: CallContext, target: DecisionTarget & { reason?: string | undefined }, approved: boolean) =>
  ctx.transact(async (tx) => {
    const { caller, services } = ctx;
    const now = services.now();
    // Rejecting with nothing waiting is how an agent leaves plan mode, from any mode.
    const plan = await findDecisionTarget(tx, caller, target).catch((err: unknown) => {
      if (approved || !leavesPlanMode(caller, target, err)) throw err;
      return undefined;
    });
    if (!plan) return leavePlanMode(tx, caller, target.reason, now);
    if (!mayDecide(caller, plan, services.config.approvalPolicy))
      fail('PERMISSION_DENIED', refusal(caller, plan, services.config.approvalPolicy));
    if (!waitsForDecision(plan, target.modification))
      stateRefusal('FAILED_PRECONDITION', nothingToDecide(plan, target));
    const decider: Decider = {
      by: caller.agent_id,
      role: caller.role,
      ...(target.reason !== undefined ? { reason: target.reason } : {}),
    };

    if (plan.status === 'in_progress') {
      const decided = decideModification(plan, approved, decider, now);
      await savePlan(tx, decided.plan);
      tx.emit(...decided.events);
      const step = decided.modification.step_id;
      return {
        status: approved ? ('modification_approved' as const) : ('modification_rejected' as const),
        plan_id: plan.plan_id,
        plan_status: decided.plan.status,
        ...(plan.dialect === '002' ? { mode: 'executing' as const } : {}),
        step_id: step,
        // The step as it now stands, in the plan object's shape: the model executes what was decided, not its request.
        step: planModeStepView(decided.step),
        message: approved
          ? `The change to step ${step} is approved and applied: "${decided.modification.new_description}".`
          : `The change to step ${step} was rejected${target.reason ? `: ${target.reason}` : ''}; the step stays as approved.`,
      };
    }

    const outcome = decideApproval(plan, approved, decider, now);
    tx.emit(...outcome.events);
    if (!approved) await releaseRejected(tx, outcome.plan, now);
    await savePlan(tx, outcome.plan);
    const mode = await modeEvents(tx, plan, outcome.plan, decider, now);
    tx.emit(...mode.events);
    const id = outcome.plan.plan_id;
    return {
      status: approved ? ('approved' as const) : ('rejected' as const),
      plan_id: id,
      plan_status: outcome.plan.status,
      ...(mode.mode !== undefined ? { mode: mode.mode } : {}),
      message: approved
        ? `Plan ${id} approved; execution begins.` +
          (mode.mode ? ' Work through the steps and call plan_step_complete after each.' : '')
        : `Plan ${id} rejected${target.reason ? `: ${target.reason}` : ''}.` +
          (mode.mode ? ' Back to normal mode.' : ''),
    };
  });
