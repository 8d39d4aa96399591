import type { Caller } from '@planhub/shared';
import { PlanHubError } from '@planhub/shared';
import { KeyedCount } from './keyed-count.ts';

/**
 * How many long-poll waits (getTaskEvents with a timeout) one agent may hold open on one node at once. Each wait
 * costs one call unit up front but then checks every event of its workspace for as long as it lasts, so without a
 * bound one agent could park thousands and make every commit of the workspace slow for everyone.
 */
export const WAITS_PER_AGENT = 16;

/** The open waits of this node's agents. */
export class WaitSlots {
  private readonly waits = new KeyedCount();

  constructor(private readonly max = WAITS_PER_AGENT) {}

  /** Takes one of the caller's slots, or refuses RESOURCE_EXHAUSTED; the answer releases it (once). */
  take(caller: Caller): () => void {
    const key = `${caller.workspace}\u0000${caller.agent_id}`;
    const now = this.waits.held(key);
    if (now >= this.max)
      throw new PlanHubError(
        'RESOURCE_EXHAUSTED',
        `You already have ${now} getTaskEvents calls waiting on this node (limit ${this.max}). Let one of them ` +
          'answer first, or subscribeToTasks once and have the events pushed to you.',
      );
    return this.waits.take(key);
  }
}
