import { isEventOf, type TaskEvent } from '@planhub/shared';
import type { DashboardState } from './state.ts';
import { waitsForDecision } from './views/approvals.ts';

/** Who decided a plan, and how, from the newest decision event the page holds for it. */
const decisionOf = (feed: readonly TaskEvent[], planId: string): { approved: boolean; by: string } | undefined => {
  for (let i = feed.length - 1; i >= 0; i--) {
    const e = feed[i]!;
    if (e.source_plan_id !== planId) continue;
    if (isEventOf(e, 'plan_approved')) return { approved: true, by: e.payload.approved_by };
    if (isEventOf(e, 'plan_rejected')) return { approved: false, by: e.payload.rejected_by };
  }
  return undefined;
};

const planStatusOf = (state: DashboardState, planId: string): string | undefined =>
  state.model.snapshot?.agents.flatMap((a) => a.plans).find((p) => p.plan_id === planId)?.status;

/**
 * What the notice says of a decision the reader pressed that was not made. A refused one (two people deciding the
 * same plan at once: the server records the first) used to vanish as soon as the plan stopped waiting, which it
 * had already done: the loser saw nothing and believed their decision taken. It now says whose decision stood.
 */
export const undecidedText = (state: DashboardState): string | undefined => {
  const u = state.undecided;
  if (!u?.refused || waitsForDecision(state, u.planId)) return u?.text;
  const r = u.refused;
  const subject = `Your ${r.approve ? 'approval' : 'rejection'} of ${r.modification ? 'the change to ' : ''}"${r.title}" (${u.planId}) was not recorded`;
  const decided = r.modification ? undefined : decisionOf(state.feed, u.planId);
  if (decided)
    return `${subject}: it was already ${decided.approved ? 'approved' : 'rejected'} by ${decided.by}.${r.at}`;
  const status = planStatusOf(state, u.planId);
  return `${subject}: ${status ? `it is already ${status.replace(/_/g, ' ')}` : 'someone else decided it first'}.${r.at}`;
};
