import type { Caller, Plan } from '@planhub/shared';
import { fail } from '@planhub/shared';
import { currentPlanId } from '../../core/agents/agent-doc.ts';
import { decideApproval } from '../../core/plans/plan-lifecycle.ts';
import type { ApprovalPolicy } from '../../core/plans/plan-lifecycle.ts';
import type { CallContext } from '../context.ts';
import { loadAgent, loadPlan, savePlan } from '../plan-access.ts';

/** Who may decide a plan's approval under the configured policy (DESIGN.md §4, invariant 6). */
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

/** plan_approve / plan_reject: the named plan, the named agent's waiting plan, or the caller's own. */
export const decide = (
  ctx: CallContext,
  target: { plan_id?: string | undefined; agent_id?: string | undefined },
  approved: boolean,
  reason?: string,
) =>
  ctx.transact(async (tx) => {
    const { caller, services } = ctx;
    let plan: Plan;
    if (target.plan_id !== undefined) plan = await loadPlan(tx, target.plan_id);
    else {
      const agentId = target.agent_id ?? caller.agent_id;
      const planId = currentPlanId(await loadAgent(tx, agentId));
      if (planId === undefined)
        return fail('NOT_FOUND', `Agent ${agentId} has no plan waiting for approval. Name the plan with plan_id.`);
      plan = await loadPlan(tx, planId);
    }
    if (!mayDecide(caller, plan, services.config.approvalPolicy))
      fail('PERMISSION_DENIED', refusal(caller, plan, services.config.approvalPolicy));
    const outcome = decideApproval(
      plan,
      approved,
      { by: caller.agent_id, role: caller.role, ...(reason !== undefined ? { reason } : {}) },
      services.now(),
    );
    await savePlan(tx, outcome.plan);
    tx.emit(...outcome.events);
    return {
      plan_id: outcome.plan.plan_id,
      status: outcome.plan.status,
      message: approved
        ? `Plan ${outcome.plan.plan_id} approved; execution begins.`
        : `Plan ${outcome.plan.plan_id} rejected${reason ? `: ${reason}` : ''}.`,
    };
  });
