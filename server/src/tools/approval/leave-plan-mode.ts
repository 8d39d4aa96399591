import type { Caller } from '@planhub/shared';
import { modeChanged } from '../../core/plan-mode/mode-events.ts';
import type { Tx } from '../../store/transaction.ts';
import { deleteModeDoc, loadModeState } from '../plan-mode/mode-access.ts';
import { finishPlan } from '../finish-plan.ts';

/**
 * plan_reject with nothing waiting for a decision: the agent leaves plan mode, whatever mode it is in (an agent can
 * always get out of plan mode, as the plan-mode tools it was built for allow). Exploring drops the goal; executing
 * cancels the approved plan, so its dependents resolve instead of waiting on steps nobody will do.
 */
export const leavePlanMode = async (tx: Tx, caller: Caller, reason: string | undefined, now: string) => {
  const state = await loadModeState(tx, caller.agent_id);
  const why = reason ? `: ${reason}` : '';
  let cancelled: string | undefined;
  if (state.mode === 'executing' && state.plan) {
    await finishPlan(tx, state.plan, 'cancelled', `rejected by ${caller.agent_id}${why}`, now);
    cancelled = state.plan.plan_id;
  }
  if (state.doc) deleteModeDoc(tx, caller.agent_id);
  const change = {
    workspace: caller.workspace,
    agent_id: caller.agent_id,
    by: caller.agent_id,
    from: state.mode,
    to: 'normal' as const,
    goal: state.doc?.goal,
    ...(state.plan ? { plan: state.plan } : {}),
  };
  tx.emit(...modeChanged(change, now));
  const message =
    state.mode === 'normal'
      ? 'Nothing was waiting for a decision; you are in normal mode.'
      : cancelled !== undefined
        ? `Plan ${cancelled} cancelled${why}. Back to normal mode.`
        : `Left plan mode${why}; nothing was presented for approval. Back to normal mode.`;
  return {
    status: 'rejected' as const,
    mode: 'normal' as const,
    plan_id: cancelled ?? null,
    plan_status: cancelled !== undefined ? 'cancelled' : null,
    message,
  };
};
