import type { EventEnvelope, PlanHubClient } from '@planhub/client-sdk';
import { expect } from 'vitest';
import { eventually } from './eventually.ts';

export interface EventLog {
  /** Every event the application saw, in order. */
  readonly events: EventEnvelope[];
  /** Resolves with the first event (already seen or still to come) that matches. */
  next(predicate: (e: EventEnvelope) => boolean): Promise<EventEnvelope>;
  of(type: string): EventEnvelope[];
  stop(): void;
}

/** Records the events `subscribe` delivers (it returns its own unsubscribe), and waits on them without sleeps. */
export const eventLog = (subscribe: (listener: (event: EventEnvelope) => void) => () => void): EventLog => {
  const events: EventEnvelope[] = [];
  const waiters = new Set<{ predicate: (e: EventEnvelope) => boolean; resolve: (e: EventEnvelope) => void }>();
  const off = subscribe((event) => {
    events.push(event);
    for (const w of [...waiters])
      if (w.predicate(event)) {
        waiters.delete(w);
        w.resolve(event);
      }
  });
  return {
    events,
    next(predicate) {
      const seen = events.find(predicate);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.add({ predicate, resolve }));
    },
    of: (type) => events.filter((e) => e.event_type === type),
    stop: off,
  };
};

/** Records what a client's application receives (after the SDK's de-duplication). */
export const recordEvents = (client: PlanHubClient): EventLog => eventLog((listener) => client.on('event', listener));

/** Creates and starts a plan (the server must run with approvalPolicy "auto"). */
export const startedPlan = async (client: PlanHubClient, title: string, steps: string[]) => {
  const plan = await client.createPlan({ title, steps });
  await client.startPlan({});
  return plan;
};

/**
 * The `step_unblocked` events of one waiting step, read from the start of the log (a workspace per test or round keeps
 * that short), so a second one would show.
 */
export const unblocksOf = async (client: PlanHubClient, planId: string, stepId: string) =>
  (
    await client.getTaskEvents({
      event_types: ['step_unblocked'],
      plan_id: planId,
      step_id: stepId,
      after_event: '0-0',
      limit: 100,
    })
  ).events;

/**
 * Waits until the workspace logged `agent_online` for `count` agents. Each is committed beside an agent's first
 * calls, not before them: a test that counts one call's reads or commits waits for these first, or a late one on a
 * loaded machine counts as the call's.
 */
export const everyoneOnline = (client: PlanHubClient, count: number) =>
  eventually(async () => {
    const online = await client.getTaskEvents({ event_types: ['agent_online'], limit: 100 });
    expect(new Set(online.events.map((e) => e.source_agent)).size).toBe(count);
  });
