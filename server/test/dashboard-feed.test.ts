import type { TaskEvent } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { DashboardState, FEED_LIMIT } from '../src/dashboard/web/state.ts';

const event = (n: number): TaskEvent => ({
  event_id: `${1000 + n}-0`,
  event_type: 'step_completed',
  timestamp: 't',
  workspace: 'ws',
  source_agent: 'a',
  source_plan_id: 'p',
  source_plan_title: 'P',
  source_step_id: `step_${n}`,
  source_step_description: 'x',
  source_step_sequence: n,
  payload: { result: null, error: null },
});

describe("the dashboard's feed", () => {
  it('shows no gap between pages loaded with "Load older" and the live buffer once the buffer rolls on', () => {
    const state = new DashboardState({ workspace: 'ws', agentId: 'board', role: 'dashboard' });
    for (let n = 11; n <= 20; n++) state.addToFeed(event(n));
    state.older = {
      key: state.filterKey,
      events: Array.from({ length: 10 }, (_, i) => event(i + 1)),
      nextBefore: event(1).event_id,
      scanned: 0,
      loading: false,
    };
    const ids = () => state.visibleFeed().map((e) => e.event_id);
    expect(ids()).toEqual(Array.from({ length: 20 }, (_, i) => event(i + 1).event_id));

    for (let n = 21; n <= 20 + FEED_LIMIT; n++) state.addToFeed(event(n));
    // Whatever is shown is one unbroken run of the log, ending with the newest event.
    const shown = ids();
    const first = Number(shown[0]!.split('-')[0]) - 1000;
    expect(shown).toEqual(Array.from({ length: shown.length }, (_, i) => event(first + i).event_id));
    expect(shown.at(-1)).toBe(event(20 + FEED_LIMIT).event_id);
  });
});
