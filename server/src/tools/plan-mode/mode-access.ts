import type { PlanMode, Plan } from '@planhub/shared';
import type { PlanModeDoc } from '../../core/plan-mode/mode.ts';
import { deriveMode } from '../../core/plan-mode/mode.ts';
import { stateRefusal } from '../../core/plan-mode/state-refusal.ts';
import { documents } from '../../store/documents/documents.ts';
import { readPlan } from '../live-plans.ts';
import type { Tx } from '../../store/transaction.ts';

export interface ModeState {
  agent_id: string;
  doc: PlanModeDoc | undefined;
  plan: Plan | undefined;
  mode: PlanMode;
}

export const loadModeState = async (tx: Tx, agentId: string): Promise<ModeState> => {
  const doc = await tx.read(documents.planMode, agentId);
  const plan = doc?.plan_id !== undefined ? await readPlan(tx, doc.plan_id) : undefined;
  return { agent_id: agentId, doc, plan, mode: deriveMode(doc, plan) };
};

/**
 * The executing plan, or a refusal that tells the model where it stands and what to do instead. `action` is what the
 * call does to a plan, worded to take the plan as its object ("complete", "complete steps of"): the refusals read
 * "no plan to <action>" and "you cannot <action> it".
 */
export const requireExecuting = (state: ModeState, action: string): Plan => {
  if (state.mode === 'executing' && state.plan) return state.plan;
  if (state.mode === 'plan')
    stateRefusal(
      'FAILED_PRECONDITION',
      `No active plan: you are still in plan mode, so there is no approved plan to ${action}. Present your plan with plan_exit and ` +
        'wait for the approval.',
    );
  if (state.mode === 'awaiting_approval')
    stateRefusal(
      'FAILED_PRECONDITION',
      `No active plan: plan ${state.plan?.plan_id ?? ''} is awaiting the user's approval; you cannot ${action} it ` +
        'before it is approved. ' +
        'Wait for the plan_approved or plan_rejected event; do not poll.',
    );
  return stateRefusal(
    'FAILED_PRECONDITION',
    `No active plan: you are in normal mode, so there is no plan to ${action}. For complex work call plan_enter, then plan_exit with ` +
      'your plan, and execute it once approved.',
  );
};
