import type { Caller, Plan } from '@planhub/shared';
import { pendingModificationOf } from '../../core/plan-mode/mode.ts';
import { stateRefusal } from '../../core/plan-mode/state-refusal.ts';
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
  const whose = agentId === caller.agent_id ? '' : ` for agent ${agentId}`;
  const hint = 'A plan waits for approval after startPlan or plan_exit; to decide another plan, name it with plan_id.';
  // Upstream's plan_approve answers {"error":"No plan awaiting approval"}; hosts match on it, so it leads unless only a
  // modification was asked about, and it is a state refusal (a JSON object through execute(), state-refusal.ts).
  return stateRefusal(
    'NOT_FOUND',
    target.modification === true
      ? `No modification waiting for a decision${whose}. ${hint}`
      : `No plan awaiting approval${whose}` +
          `${target.modification === false ? '' : ', and no modification waiting for a decision'}. ${hint}`,
  );
};
