import type { EventEnvelope, NewEvent } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { SCAN_BUDGET, scanBackward, scanForward } from '../src/events/scan-log.ts';
import { createMemoryStore } from '../src/store/memory-store.ts';
import { countingEventReads } from './support/counting-event-reads.ts';

const event = (n: number, agent = 'a'): NewEvent => ({
  event_type: 'step_completed',
  timestamp: new Date(n).toISOString(),
  workspace: 'ws',
  source_agent: agent,
  source_plan_id: null,
  source_plan_title: null,
  source_step_id: `step_${n}`,
  source_step_description: null,
  source_step_sequence: n,
  payload: {},
});

/** A memory store holding `total` events (the one at `rareAt`, if any, from agent "rare"), counting what is read. */
const storeWith = async (total: number, rareAt = -1) => {
  const store = createMemoryStore({ eventRetention: total + 10 });
  const events: NewEvent[] = Array.from({ length: total }, (_, i) => event(i, i === rareAt ? 'rare' : 'a'));
  const outcome = await store.commit('ws', { reads: [], writes: [], events });
  const ids = outcome.ok ? outcome.events.map((e) => e.event_id) : [];
  return { ...countingEventReads(store), ids };
};

const rare = (e: EventEnvelope) => e.source_agent === 'rare';
const any = () => true;

describe('scanning the event log within a budget', () => {
  it('stops a backward scan for a filter that matches nothing at the budget and says where it stopped', async () => {
    const { store, read, ids } = await storeWith(6_000);
    const scan = await scanBackward(store, 'ws', undefined, 20, rare, SCAN_BUDGET);
    expect(scan).toMatchObject({ events: [], scanned: SCAN_BUDGET, complete: false });
    expect(read()).toBe(SCAN_BUDGET);
    expect(scan.nextBefore).toBe(ids[6_000 - SCAN_BUDGET]);
  });

  it('finds a rare event older than one budget by continuing from next_before', async () => {
    const { store } = await storeWith(6_000, 1_000);
    let before: string | undefined;
    let found: EventEnvelope[] = [];
    let calls = 0;
    do {
      const scan = await scanBackward(store, 'ws', before, 20, rare, SCAN_BUDGET);
      calls++;
      found = scan.events;
      before = scan.nextBefore;
    } while (found.length === 0 && before !== undefined);
    expect(found.map((e) => e.source_step_id)).toEqual(['step_1000']);
    expect(calls).toBe(3);
  });

  it('pages back through a loose filter one limit at a time, oldest first within a page, without gaps', async () => {
    const { store, read, ids } = await storeWith(50);
    const first = await scanBackward(store, 'ws', undefined, 20, any, SCAN_BUDGET);
    const second = await scanBackward(store, 'ws', first.nextBefore, 20, any, SCAN_BUDGET);
    const third = await scanBackward(store, 'ws', second.nextBefore, 20, any, SCAN_BUDGET);
    const seen = [...third.events, ...second.events, ...first.events].map((e) => e.source_step_sequence);
    expect(seen).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(first.cursor).toBe(ids[49]);
    expect(third.complete).toBe(true);
    expect(third.nextBefore).toBeUndefined();
    expect(read()).toBeLessThan(3 * 100 + 50);
  });

  it('stops a forward scan at the budget with its cursor where it stopped, and marks the end of the log', async () => {
    const { store, ids } = await storeWith(3_000);
    const cut = await scanForward(store, 'ws', '0-0', 20, rare, SCAN_BUDGET);
    expect(cut).toMatchObject({ events: [], scanned: SCAN_BUDGET, complete: false, cursor: ids[SCAN_BUDGET - 1] });
    const rest = await scanForward(store, 'ws', cut.cursor!, 20, rare, SCAN_BUDGET);
    expect(rest).toMatchObject({ events: [], scanned: 1_000, complete: true, cursor: ids[2_999] });
  });
});
