import { isEventOf, type TaskEvent } from '@planhub/shared';
import type { DashboardState, Undecided } from './state.ts';

type Outcome = { approved: boolean; by: string };

/**
 * Who decided a plan (or its pending modification), and how, from the newest decision event of that kind the page
 * holds for it: a modification's decision is a plan_modified event, not plan_approved or plan_rejected.
 */
const decisionOf = (feed: readonly TaskEvent[], planId: string, modification: boolean): Outcome | undefined => {
  for (let i = feed.length - 1; i >= 0; i--) {
    const e = feed[i]!;
    if (e.source_plan_id !== planId) continue;
    if (modification) {
      if (!isEventOf(e, 'plan_modified')) continue;
      const p = e.payload as { state?: unknown; decided_by?: unknown };
      if ((p.state === 'approved' || p.state === 'rejected') && typeof p.decided_by === 'string')
        return { approved: p.state === 'approved', by: p.decided_by };
      continue;
    }
    if (isEventOf(e, 'plan_approved')) return { approved: true, by: e.payload.approved_by };
    if (isEventOf(e, 'plan_rejected')) return { approved: false, by: e.payload.rejected_by };
  }
  return undefined;
};

const planStatusOf = (state: DashboardState, planId: string): string | undefined =>
  state.model.snapshot?.agents.flatMap((a) => a.plans).find((p) => p.plan_id === planId)?.status;

/**
 * Whether the plan still waits for the kind of decision the reader made: a plan whose approval was decided and
 * that now waits for a change to one of its steps does not wait for that approval any more.
 */
export const waitsForSameDecision = (state: DashboardState, u: Pick<Undecided, 'planId' | 'modification'>) =>
  state.model.snapshot?.agents.some((a) =>
    u.modification
      ? a.pending_modifications.some((m) => m.plan_id === u.planId)
      : a.pending_approvals.some((p) => p.plan_id === u.planId),
  ) ?? false;

/**
 * What the notice says of a decision the reader pressed that was not made. A refused one (two people deciding the
 * same plan at once: the server records the first) used to vanish as soon as the plan stopped waiting, which it
 * had already done: the loser saw nothing and believed their decision taken. It now says whose decision stood.
 * A lost race says so from its first write: the page may not have caught up with the plan no longer waiting yet,
 * and the server's FAILED_PRECONDITION text, written for agents, was announced just before the outcome.
 */
export const undecidedText = (state: DashboardState): string | undefined => {
  const u = state.undecided;
  const r = u?.refused;
  if (!u || !r || (!r.lostRace && waitsForSameDecision(state, u))) return u?.text;
  const subject = `Your ${r.approve ? 'approval' : 'rejection'} of ${u.modification ? 'the change to ' : ''}"${r.title}" (${u.planId}) was not recorded`;
  const decided = decisionOf(state.feed, u.planId, u.modification);
  if (decided)
    return `${subject}: it was already ${decided.approved ? 'approved' : 'rejected'} by ${decided.by}.${r.at}`;
  const status = waitsForSameDecision(state, u) ? undefined : planStatusOf(state, u.planId);
  return `${subject}: ${status ? `it is already ${status.replace(/_/g, ' ')}` : 'someone else decided it first'}.${r.at}`;
};
