import { PlanHubError } from '@planhub/shared';
import type { Connection } from './connection.ts';
import type { DashboardState } from './state.ts';

/** How long the answer to a decision stays on screen. */
const INFO_NOTICE_MS = 8_000;

export interface DeciderDeps {
  state: DashboardState;
  connection: () => Connection;
  schedule: () => void;
  fail: (err: unknown) => unknown;
  /** Re-reads the overview once the decision is answered, whatever the answer. */
  refresh: () => void;
}

/** A person's approval or rejection of a plan (or of its modification), and its answer shown for a while. */
export const createDecider =
  ({ state, connection, schedule, fail, refresh }: DeciderDeps) =>
  (planId: string, approve: boolean, reason: string, modification: boolean): void => {
    state.deciding.add(planId);
    schedule();
    const args = { plan_id: planId, ...(modification ? { modification: true } : {}) };
    const call = approve
      ? connection().call('plan_approve', args)
      : connection().call('plan_reject', { ...args, ...(reason ? { reason } : {}) });
    call
      .then((answer) => {
        const notice = { kind: 'info' as const, text: answer.message };
        state.notice = notice;
        // Said once, then gone: a message left standing reads as news to whoever looks next.
        setTimeout(() => {
          if (state.notice !== notice) return;
          state.notice = undefined;
          schedule();
        }, INFO_NOTICE_MS);
      })
      .catch((err: unknown) => fail(err instanceof PlanHubError ? new Error(`${err.code}: ${err.message}`) : err))
      .finally(() => {
        state.deciding.delete(planId);
        refresh();
      });
  };
