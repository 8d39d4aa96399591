import { PlanHubError, RETRYABLE_CODES } from '@planhub/shared';
import { rateWait } from './call-errors.ts';
import type { Connection } from './connection.ts';
import type { DashboardState } from './state.ts';

/** How long the answer to a decision stays on screen. */
const INFO_NOTICE_MS = 8_000;

export interface DeciderDeps {
  state: DashboardState;
  connection: () => Connection;
  schedule: () => void;
  /** Re-reads the overview once the decision is answered, whatever the answer. */
  refresh: () => void;
}

/** What a decision names: the plan (or its pending change) by title, for the messages about it. */
export interface Decision {
  planId: string;
  title: string;
  approve: boolean;
  reason: string;
  modification: boolean;
}

const what = (d: Decision) => `${d.modification ? 'the change to ' : ''}"${d.title}" (${d.planId})`;

const causeOf = (err: unknown): string =>
  err instanceof PlanHubError ? `${err.code}: ${err.message}` : String(err instanceof Error ? err.message : err);

/**
 * A refusal's words. The server's own for a full store ("retry this call later with the same request_id") are for
 * whoever codes an agent; a person is told what it means for the plan and when to press again.
 */
const refusalText = (d: Decision, verb: string, at: string, err: PlanHubError): string => {
  if (err.code !== 'RESOURCE_EXHAUSTED') return `Not ${verb}: ${what(d)}: ${causeOf(err)}`;
  const wait = rateWait(err);
  if (wait !== undefined)
    return `Not ${verb}: the server asked this page to slow down. ${what(d)} still waits for a decision; decide again in ${Math.max(1, Math.ceil(wait / 1000))} s.${at}`;
  return `Not ${verb}: the server’s store is full, so no decision can be recorded until whoever runs PlanHub frees memory in it. ${what(d)} still waits for a decision; decide again once the banner at the top is gone.${at}`;
};

/**
 * A decision's answer in words for the person who made it, naming the plan by its title. The server's message is
 * written for the plan's agent ("Plan plan_… approved; execution begins. Work through the steps and call
 * plan_step_complete after each."): a tool to call, and the plan by its id. The agent's own answer is unchanged.
 */
const decidedText = (d: Decision, at: string, stepId?: unknown): string => {
  const step = typeof stepId === 'number' || typeof stepId === 'string' ? `step ${stepId} of ` : '';
  if (d.modification)
    return d.approve
      ? `Approved the change to ${step}"${d.title}".${at}`
      : `Rejected the change to ${step}"${d.title}"; the step stays as it was.${at}`;
  return d.approve
    ? `Approved "${d.title}"; its agent may start on it.${at}`
    : `Rejected "${d.title}"${d.reason ? ` with the reason: ${d.reason}` : ''}.${at}`;
};

const maybeNotText = (d: Decision, verb: string, err: unknown): string =>
  `Maybe not ${verb}: ${what(d)} got no answer (${causeOf(err)}). If its card is still there, it still waits: decide again.`;

/**
 * A person's approval or rejection of a plan (or of its modification), and its answer shown for a while. A decision
 * that was not made says so in `state.undecided`, naming the plan, beside any other notice and across a reconnect
 * (app.ts drops it once the plan no longer waits, unless the server refused it: decision-outcome.ts): a bare "operation has timed out" that a reconnect wiped left the
 * reader believing the plan approved.
 */
export const createDecider =
  ({ state, connection, schedule, refresh }: DeciderDeps) =>
  (d: Decision): void => {
    const verb = d.approve ? 'approved' : 'rejected';
    // The time makes a second press's text new, so the alert is announced again.
    const at = ` (${new Date().toLocaleTimeString()})`;
    if (state.status !== 'live') {
      state.undecided = {
        planId: d.planId,
        modification: d.modification,
        text: `Not ${verb}: the dashboard is not connected, so nothing was sent. ${what(d)} still waits for a decision; decide again once the page is live.${at}`,
      };
      schedule();
      return;
    }
    state.undecided = undefined;
    state.deciding.add(d.planId);
    schedule();
    const args = { plan_id: d.planId, ...(d.modification ? { modification: true } : {}) };
    const call = d.approve
      ? connection().call('plan_approve', args)
      : connection().call('plan_reject', { ...args, ...(d.reason ? { reason: d.reason } : {}) });
    call
      .then((answer) => {
        const notice = {
          kind: 'info' as const,
          text: decidedText(d, at, 'step_id' in answer ? answer.step_id : undefined),
        };
        state.notice = notice;
        // Said once, then gone: a message left standing reads as news to whoever looks next.
        setTimeout(() => {
          if (state.notice !== notice) return;
          state.notice = undefined;
          schedule();
        }, INFO_NOTICE_MS);
      })
      .catch((err: unknown) => {
        // A refusal applied nothing; a lost answer may hide a decision that was made (the re-read below shows it).
        const refused = err instanceof PlanHubError && !RETRYABLE_CODES.has(err.code);
        const lostRace = err instanceof PlanHubError && err.code === 'FAILED_PRECONDITION';
        state.undecided = {
          planId: d.planId,
          modification: d.modification,
          text: refused ? refusalText(d, verb, at, err) : maybeNotText(d, verb, err),
          // Kept once the plan stops waiting: that is what a lost race looks like (decision-outcome.ts), whose
          // words app.ts writes from the first render, before the page has caught up with the other decision.
          // Not a refusal for a full store or the page's rate: it only says to press again, moot once decided.
          ...(refused && err.code !== 'RESOURCE_EXHAUSTED'
            ? { refused: { approve: d.approve, title: d.title, at, lostRace } }
            : {}),
        };
        schedule();
      })
      .finally(() => {
        state.deciding.delete(d.planId);
        refresh();
      });
  };
