import type { EventEnvelope, Plan } from '@planhub/shared';
import { requestApproval } from '../../core/plans/plan-lifecycle.ts';
import type { ToolHandlers } from '../context.ts';
import { resolvePlan, savePlan } from '../plan-access.ts';

const DECISIONS = new Set(['plan_approved', 'plan_rejected']);

const answer = (plan: Pick<Plan, 'plan_id' | 'status' | 'decision'>) => {
  if (plan.status === 'in_progress')
    return {
      plan_id: plan.plan_id,
      status: plan.status,
      message: 'Plan approved. Proceed with the first step and report each outcome with setStepStatus.',
    };
  if (plan.status === 'rejected')
    return {
      plan_id: plan.plan_id,
      status: plan.status,
      message: 'The user rejected the plan. Ask what to change, then create a new plan.',
      ...(plan.decision?.reason ? { reason: plan.decision.reason } : {}),
    };
  return { plan_id: plan.plan_id, status: plan.status, message: 'Waiting for the user to approve or reject the plan.' };
};

/**
 * startPlan answers when the plan is decided. The wait starts before the commit, so a decision made at once on
 * another node is still seen; a retry (same or new connection) simply waits again, so no request log is needed.
 */
export const startPlan: ToolHandlers['startPlan'] = async (ctx, args) => {
  const { caller, services } = ctx;
  let planId: string | undefined = args.plan_id;
  const wait = services.hub.waitFor(
    caller.workspace,
    (e: EventEnvelope) =>
      DECISIONS.has(e.event_type) &&
      (planId === undefined ? e.payload.agent_id === caller.agent_id : e.source_plan_id === planId),
    { signal: ctx.signal },
  );
  try {
    const plan = await ctx.transact(async (tx) => {
      const current = await resolvePlan(tx, caller, args, 'write');
      planId = current.plan_id;
      const outcome = requestApproval(current, args.message, services.config.approvalPolicy, services.now());
      if (outcome.events.length > 0) {
        await savePlan(tx, outcome.plan);
        tx.emit(...outcome.events);
      }
      return outcome.plan;
    });
    if (plan.status !== 'awaiting_approval' || !args.wait) return answer(plan);
    const decision = await wait.promise;
    const approved = decision?.event_type === 'plan_approved';
    const reason = decision?.payload.reason;
    return answer({
      plan_id: plan.plan_id,
      status: approved ? 'in_progress' : 'rejected',
      ...(typeof reason === 'string' ? { decision: { by: '', role: '', at: '', reason } } : {}),
    });
  } finally {
    wait.cancel();
  }
};
