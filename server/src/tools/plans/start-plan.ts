import type { EventEnvelope, Plan } from '@planhub/shared';
import { eventOf } from '@planhub/shared';
import { requestApproval } from '../../core/plans/plan-lifecycle.ts';
import type { ToolHandlers } from '../context.ts';
import { resolvePlan, savePlan } from '../plan-access.ts';

/** The agent whose plan a decision event decided, read from its typed payload; undefined for other events. */
const decidedFor = (e: EventEnvelope): string | undefined =>
  (eventOf(e, 'plan_approved') ?? eventOf(e, 'plan_rejected'))?.payload.agent_id;

type Decided = Pick<Plan, 'plan_id' | 'title' | 'status' | 'decision' | 'steps'>;

/** Upstream's fields (confirmed, title, the steps) beside PlanHub's status and guidance. */
const answer = (plan: Decided) => {
  const base = {
    confirmed: plan.status === 'in_progress',
    plan_id: plan.plan_id,
    title: plan.title,
    status: plan.status,
    steps: plan.steps.map((s) => ({ step_id: s.id, sequence: s.sequence, description: s.description })),
  };
  if (plan.status === 'in_progress')
    return {
      ...base,
      message:
        'Plan confirmed. You may proceed with execution: start with the first step and report each outcome with setStepStatus.',
    };
  if (plan.status === 'rejected')
    return {
      ...base,
      message: 'The user rejected the plan. Ask what to change, then create a new plan.',
      ...(plan.decision?.reason ? { reason: plan.decision.reason } : {}),
    };
  return { ...base, message: 'Waiting for the user to approve or reject the plan.' };
};

/**
 * startPlan answers when the plan is decided. The wait starts before the commit, so a decision made at once on
 * another node is still seen; a retry (same or new connection) simply waits again, or answers the decision already
 * made, so no request log is needed.
 */
export const startPlan: ToolHandlers['startPlan'] = async (ctx, args) => {
  const { caller, services } = ctx;
  // Known up front only with plan_id; otherwise once the transaction has found the plan. Until then the decisions on
  // any of the caller's plans are kept, and the one for the plan found is picked afterwards.
  let planId: string | undefined = args.plan_id;
  const early: EventEnvelope[] = [];
  const wait = services.hub.waitFor(
    caller.workspace,
    (e: EventEnvelope) => {
      if (decidedFor(e) === undefined) return false;
      if (planId !== undefined) return e.source_plan_id === planId;
      if (decidedFor(e) === caller.agent_id) early.push(e);
      return false;
    },
    { signal: ctx.signal },
  );
  try {
    const plan = await ctx.transact(async (tx) => {
      // Without plan_id: the current plan, else the latest one, so a retry after a rejection finds the decision.
      // Starting changes no step and answers each step's id, sequence and description: their briefs are enough.
      const mode = args.plan_id === undefined ? 'latest' : 'write';
      const current = await resolvePlan(tx, caller, args, mode, 'startPlan', 'brief');
      const outcome = requestApproval(
        current,
        args.message,
        services.config.approvalPolicy,
        services.now(),
        ctx.requestId,
      );
      if (outcome.events.length > 0) {
        await savePlan(tx, outcome.plan);
        tx.emit(...outcome.events);
      }
      return outcome.plan;
    });
    planId = plan.plan_id;
    const noLongWaits = ctx.connection?.noLongWaits;
    if (plan.status === 'awaiting_approval' && noLongWaits) return { ...answer(plan), next: noLongWaits.next };
    if (plan.status !== 'awaiting_approval' || !args.wait) return answer(plan);
    const decision = early.find((e) => e.source_plan_id === planId) ?? (await wait.promise);
    const approved = decision?.event_type === 'plan_approved';
    const reason = decision ? eventOf(decision, 'plan_rejected')?.payload.reason : undefined;
    return answer({
      ...plan,
      status: approved ? 'in_progress' : 'rejected',
      ...(typeof reason === 'string' ? { decision: { by: '', role: '', at: '', reason } } : {}),
    });
  } finally {
    wait.cancel();
  }
};
