import type { NewEvent, Subscription } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { countSubscriptionMatches } from '../src/events/match-counts.ts';
import { createMemoryStore } from '../src/store/memory-store.ts';
import { countingEventReads } from './support/counting-event-reads.ts';

const at = (ms: number) => new Date(ms).toISOString();

const event = (ms: number, agent: string, type: NewEvent['event_type'] = 'step_completed', plan = 'p1'): NewEvent => ({
  event_type: type,
  timestamp: at(ms),
  workspace: 'ws',
  source_agent: agent,
  source_plan_id: plan,
  source_plan_title: null,
  source_step_id: `step_${ms}`,
  source_step_description: null,
  source_step_sequence: 1,
  payload: {},
});

const sub = (id: string, createdMs: number, filter: Partial<Subscription> = {}): Subscription => ({
  subscription_id: id,
  agent_id: '*',
  event_types: ['step_completed'],
  created_at: at(createdMs),
  ...filter,
});

/** A memory store holding `events`, counting the log entries read. */
const storeWith = async (events: NewEvent[]) => {
  const store = createMemoryStore({ eventRetention: events.length + 10 });
  if (events.length > 0) await store.commit('ws', { reads: [], writes: [], events });
  return countingEventReads(store);
};

describe("counting a subscription's matches from the event log", () => {
  it("counts matching events from its creation on, the subscriber's own included, and nothing from before", async () => {
    const { store } = await storeWith([
      event(1_000, 'worker'),
      event(2_000, 'worker'),
      event(3_000, 'main'),
      event(3_500, 'worker', 'plan_created'),
      event(4_000, 'worker', 'step_completed', 'p2'),
    ]);
    const { counts } = await countSubscriptionMatches(
      store,
      'ws',
      [sub('any', 2_000), sub('worker-p1', 1_500, { agent_id: 'worker', plan_id: 'p1' }), sub('late', 5_000)],
      2_000,
    );
    expect(Object.fromEntries(counts)).toEqual({
      // 2_000 (at its creation), 3_000 (main's own), 4_000; not 1_000 (before) nor plan_created (other type).
      any: { count: 3, complete: true },
      'worker-p1': { count: 1, complete: true },
      late: { count: 0, complete: true },
    });
  });

  it('counts from the log position a subscription was made at, not its clock, when it has one', async () => {
    const events = [event(1_000, 'worker'), event(1_000, 'worker'), event(1_000, 'worker')];
    const store = createMemoryStore({ eventRetention: 10 });
    const outcome = await store.commit('ws', { reads: [], writes: [], events });
    const ids = outcome.ok ? outcome.events.map((e) => e.event_id) : [];
    // Made in the same millisecond as all three events, after the first two were logged.
    const s = { ...sub('s', 1_000), created_after_event: ids[1]! };
    const { counts } = await countSubscriptionMatches(store, 'ws', [s], 2_000);
    expect(counts.get('s')).toEqual({ count: 1, complete: true });
  });

  it('reads back only to the oldest subscription, not the whole log', async () => {
    const { store, read } = await storeWith(Array.from({ length: 1_000 }, (_, i) => event(i, 'worker')));
    const { counts, scanned } = await countSubscriptionMatches(store, 'ws', [sub('s', 950)], 2_000);
    expect(counts.get('s')).toEqual({ count: 50, complete: true });
    // 50 matching events plus the one before them that ends the scan; reads of 32 and 64 entries.
    expect(scanned).toBe(51);
    expect(read()).toBeLessThanOrEqual(100);
  });

  it('says the count is a lower bound when the budget ends before the subscription was made', async () => {
    const { store } = await storeWith(Array.from({ length: 3_000 }, (_, i) => event(i, 'worker')));
    const { counts, scanned } = await countSubscriptionMatches(store, 'ws', [sub('old', 0), sub('new', 2_500)], 2_000);
    expect(scanned).toBe(2_000);
    expect(counts.get('old')).toEqual({ count: 2_000, complete: false });
    expect(counts.get('new')).toEqual({ count: 500, complete: true });
  });

  it('reads nothing for an agent without subscriptions', async () => {
    const { store, read } = await storeWith([event(1, 'worker')]);
    expect(await countSubscriptionMatches(store, 'ws', [], 2_000)).toEqual({ counts: new Map(), scanned: 0, bytes: 0 });
    expect(read()).toBe(0);
  });
});
