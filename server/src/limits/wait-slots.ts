import type { Caller } from '@planhub/shared';
import { PlanHubError } from '@planhub/shared';

/**
 * How many long-poll waits (getTaskEvents with a timeout) one agent may hold open on one node at once. Each wait
 * costs one call unit up front but then checks every event of its workspace for as long as it lasts, so without a
 * bound one agent could park thousands and make every commit of the workspace slow for everyone.
 */
export const WAITS_PER_AGENT = 16;

/** The open waits of this node's agents. */
export class WaitSlots {
  private readonly held = new Map<string, number>();

  constructor(private readonly max = WAITS_PER_AGENT) {}

  /** Takes one of the caller's slots, or refuses RESOURCE_EXHAUSTED; the answer releases it (once). */
  take(caller: Caller): () => void {
    const key = `${caller.workspace}\u0000${caller.agent_id}`;
    const now = this.held.get(key) ?? 0;
    if (now >= this.max)
      throw new PlanHubError(
        'RESOURCE_EXHAUSTED',
        `You already have ${now} getTaskEvents calls waiting on this node (limit ${this.max}). Let one of them ` +
          'answer first, or subscribeToTasks once and have the events pushed to you.',
      );
    this.held.set(key, now + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(key) ?? 1) - 1;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
    };
  }
}
