import type { Caller, Plan } from '@planhub/shared';
import { fail } from '@planhub/shared';
import { pendingModificationOf } from '../../core/plan-mode/mode.ts';
import type { Tx } from '../../store/transaction.ts';
import { loadAgent, loadPlan } from '../plan-access.ts';

export interface DecisionTarget {
  plan_id?: string | undefined;
  agent_id?: string | undefined;
  modification?: boolean | undefined;
}

/** Something a decision can apply to: a plan awaiting approval, or an executing plan's pending modification. */
export const waitsForDecision = (plan: Plan, modification: boolean | undefined): boolean =>
  (modification !== true && plan.status === 'awaiting_approval') ||
  (modification !== false && pendingModificationOf(plan) !== undefined);

/**
 * The named plan, or the agent's newest unfinished plan that waits for a decision: an agent may hold unfinished plans
 * of several dialects, and "approve" means the one the user is being asked about.
 */
export const findDecisionTarget = async (tx: Tx, caller: Caller, target: DecisionTarget): Promise<Plan> => {
  if (target.plan_id !== undefined) return loadPlan(tx, target.plan_id);
  const agentId = target.agent_id ?? caller.agent_id;
  const open = (await loadAgent(tx, agentId)).plans.filter((p) => !p.finished).reverse();
  for (const ref of open) {
    const plan = await loadPlan(tx, ref.plan_id);
    if (waitsForDecision(plan, target.modification)) return plan;
  }
  const what =
    target.modification === true
      ? 'modification waiting for a decision'
      : target.modification === false
        ? 'plan waiting for approval'
        : 'plan or modification waiting for a decision';
  return fail(
    'NOT_FOUND',
    `${agentId === caller.agent_id ? 'You have' : `Agent ${agentId} has`} no ${what}. A plan waits for approval after startPlan or plan_exit; to decide another plan, name it with plan_id.`,
  );
};
