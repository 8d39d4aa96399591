import type { PlanModeView } from '@planhub/shared';
import { isDataLoss, rateWait, slowDownText } from './call-errors.ts';
import type { Connection } from './connection.ts';
import type { DashboardState } from './state.ts';

/** Plans kept at most: the cards of one page rarely show more than a few; a page open all day sees many. */
const MOST_KEPT = 50;
/** How long a failed read waits before the next render may try it again, when the refusal named no time. */
const RETRY_MS = 5_000;

export type PlanDetails =
  { state: 'loading' } | { state: 'loaded'; mode: PlanModeView | undefined } | { state: 'failed'; error: string };

interface PlanDetailsDeps {
  state: DashboardState;
  connection: () => Connection;
  changed: () => void;
  /** A read answered DATA_LOSS: the store was wiped (data-loss.ts). */
  lose: (message: string) => void;
}

/**
 * The 002 plan objects (approach, risks, files, verification) of plans waiting for approval, for their cards. The
 * overview (getWorkspace) carries none of them, and a person must not approve a plan without seeing what its agent
 * submitted; getPlanStatus does. A plan waiting for approval does not change until decided, so each is read once,
 * and kept across reconnections; a failed read is tried again, once its wait is over, by the render that wants it.
 */
export const createPlanDetails = ({ state, connection, changed, lose }: PlanDetailsDeps) => {
  const kept = new Map<string, PlanDetails>();
  const retryAt = new Map<string, number>();

  const load = (planId: string) => {
    // Moved to the end, so the plan read longest ago is the one dropped when there are too many.
    kept.delete(planId);
    kept.set(planId, { state: 'loading' });
    connection()
      .call('getPlanStatus', { plan_id: planId })
      .then((plan) => {
        kept.set(planId, { state: 'loaded', mode: plan.plan_mode });
        retryAt.delete(planId);
      })
      .catch((err: unknown) => {
        if (isDataLoss(err)) lose(err.message);
        const rate = rateWait(err);
        const wait = rate ?? RETRY_MS;
        // A refusal for the page's rate is told in words for a person, not the server's advice to agents.
        const error = rate !== undefined ? slowDownText(rate) : err instanceof Error ? err.message : String(err);
        kept.set(planId, { state: 'failed', error });
        retryAt.set(planId, Date.now() + wait);
        // Renders come with events; a quiet workspace would leave the card saying it failed until the next one.
        setTimeout(changed, wait);
      })
      .finally(changed);
  };

  return {
    /**
     * What the card of `planId` shows, starting its read if none was made (or the last failed and its wait is
     * over). Called while rendering: the read's answer renders again.
     */
    want(planId: string): PlanDetails {
      const known = kept.get(planId);
      const live = state.status === 'live' && state.storeTrouble?.kind !== 'lost';
      const due = known?.state === 'failed' && Date.now() >= (retryAt.get(planId) ?? 0);
      if (live && (!known || due)) {
        load(planId);
        for (const id of kept.keys()) if (kept.size > MOST_KEPT && id !== planId) kept.delete(id);
      }
      return kept.get(planId) ?? { state: 'loading' };
    },
  };
};

export type PlanDetailsSource = ReturnType<typeof createPlanDetails>;
