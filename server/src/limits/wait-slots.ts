import type { Caller } from '@planhub/shared';
import { PlanHubError } from '@planhub/shared';
import { KeyedCount } from './keyed-count.ts';

/**
 * How many waits of one kind (below) one agent may hold open on one node at once. Each wait costs one call unit up
 * front but then checks every event of its workspace for as long as it lasts, so without a bound one agent could
 * park thousands and make every commit of the workspace slow for everyone (7,519 re-sent startPlan waits in 40 s
 * took a node from 152 to 220 MB).
 */
export const WAITS_PER_AGENT = 16;

/** A kind of wait: each has its own WAITS_PER_AGENT slots, and its own words for the refusal. */
export interface WaitKind {
  /** What the agent holds, as the refusal counts it: "getTaskEvents calls waiting". */
  calls: string;
  /** What to do instead, the refusal's last sentence. */
  advice: string;
}

/** getTaskEvents with a timeout. */
export const LONG_POLL: WaitKind = {
  calls: 'getTaskEvents calls waiting',
  advice: 'Let one of them answer first, or subscribeToTasks once and have the events pushed to you.',
};

/** startPlan waiting for a person's decision on the plan. */
export const decisionWait = (planId: string): WaitKind => ({
  calls: 'startPlan calls waiting for a decision',
  advice:
    `Plan ${planId} awaits approval, and each of those calls answers as soon as it is approved or rejected: wait ` +
    'for one of them instead of calling startPlan again, or call startPlan with wait=false and learn the decision ' +
    'from getPlanStatus or the plan_approved / plan_rejected events.',
});

/**
 * Waits one connection can hold at once: each kind's slots are the agent's, whatever connection it calls on. Each
 * wait listens on its call's abort signal, which a socket shares by all of its calls; node warns of a possible leak
 * ("MaxListenersExceededWarning") past 10 listeners, so the signal is told this bound instead.
 */
export const WAITS_PER_CONNECTION = 2 * WAITS_PER_AGENT; // LONG_POLL and decisionWait

/** The open waits of this node's agents. */
export class WaitSlots {
  private readonly waits = new KeyedCount();

  constructor(private readonly max = WAITS_PER_AGENT) {}

  /** Takes one of the caller's slots for `kind`, or refuses RESOURCE_EXHAUSTED; the answer releases it (once). */
  take(caller: Caller, kind: WaitKind = LONG_POLL): () => void {
    const key = `${caller.workspace}\u0000${caller.agent_id}\u0000${kind.calls}`;
    const now = this.waits.held(key);
    if (now >= this.max)
      throw new PlanHubError(
        'RESOURCE_EXHAUSTED',
        `You already have ${now} ${kind.calls} on this node (limit ${this.max}). ${kind.advice}`,
      );
    return this.waits.take(key);
  }
}
