import type { TaskEvent, ToolArgs, ToolResult } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import type { Connection } from '../../server/src/dashboard/web/connection.ts';
import { readPlanEvents } from '../../server/src/dashboard/web/plan-events.ts';

const SCANNED_PER_CALL = 2_000;

const eventAt = (ms: number): TaskEvent => ({ event_id: `${ms}-0`, event_type: 'step_started' }) as TaskEvent;

/**
 * getTaskEvents over a log of `entries` entries (ids 1..entries) where the plan's events are at `planAt`: each call
 * looks at SCANNED_PER_CALL entries back from before_event, as the server does. Counts its calls.
 */
const fakeLog = (entries: number, planAt: number[], createdAt?: number) => {
  const calls: ToolArgs<'getTaskEvents'>[] = [];
  const conn = {
    call: (_tool: 'getTaskEvents', args: ToolArgs<'getTaskEvents'>) => {
      calls.push(args);
      const top = args.before_event ? Number(args.before_event.split('-')[0]) - 1 : entries;
      const bottom = Math.max(1, top - SCANNED_PER_CALL + 1);
      const events = planAt
        .filter((at) => at >= bottom && at <= top)
        .map((at) =>
          at === createdAt
            ? ({ ...eventAt(at), event_type: 'plan_created', source_plan_id: 'p1' } as TaskEvent)
            : eventAt(at),
        );
      const answer: Partial<ToolResult<'getTaskEvents'>> = {
        events,
        scanned: top - bottom + 1,
        next_before: bottom > 1 ? `${bottom}-0` : null,
      };
      return Promise.resolve(answer);
    },
  } as unknown as Connection;
  return { conn, calls };
};

/** How a plan page reads its plan's events from a log that one call cannot look through. */
describe('the dashboard’s search for a plan’s events', () => {
  it('pages back past entries of other plans to the plan’s events, and says it reached the oldest', async () => {
    const { conn, calls } = fakeLog(7_000, [10, 20, 30]);
    const found = await readPlanEvents(conn, 'p1');
    expect(found.events.map((e) => e.event_id)).toEqual(['10-0', '20-0', '30-0']);
    expect(found).toMatchObject({ scanned: 7_000, complete: true });
    expect(calls).toHaveLength(4);
  });

  it('stops after five calls on a longer log and says how far it looked', async () => {
    const { conn, calls } = fakeLog(30_000, [10, 29_999]);
    const found = await readPlanEvents(conn, 'p1');
    expect(found.events.map((e) => e.event_id)).toEqual(['29999-0']);
    expect(found).toMatchObject({ scanned: 10_000, complete: false });
    expect(calls).toHaveLength(5);
  });

  it('reads again only back to the newest event it already has', async () => {
    const first = fakeLog(7_000, [10, 6_990]);
    const known = await readPlanEvents(first.conn, 'p1');
    const again = fakeLog(7_001, [10, 6_990, 7_001]);
    const found = await readPlanEvents(again.conn, 'p1', known);
    expect(found.events.map((e) => e.event_id)).toEqual(['10-0', '6990-0', '7001-0']);
    expect(found.complete).toBe(true);
    expect(again.calls).toHaveLength(1);
  });

  it('stops at the plan’s plan_created: nothing of the plan is older, so the rest of the log is not scanned', async () => {
    // A plan page used to make five calls of 2,000 entries for a plan with one event, and plan pages opened in a
    // row spent the page's call budget.
    const { conn, calls } = fakeLog(30_000, [29_500], 29_500);
    const found = await readPlanEvents(conn, 'p1');
    expect(found.events.map((e) => e.event_type)).toEqual(['plan_created']);
    expect(found).toMatchObject({ scanned: 2_000, complete: true });
    expect(calls).toHaveLength(1);
  });
});
