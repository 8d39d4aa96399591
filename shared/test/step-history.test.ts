import type { EventEnvelope, EventType } from '../src/index.ts';
import { describe, expect, it } from 'vitest';
import { formatDuration, statusHistory, stepDuration } from '../src/index.ts';

let seq = 0;
const at = (type: EventType, seconds: number, step = 'step_1', plan = 'p1'): EventEnvelope => ({
  event_id: `${1_700_000_000_000 + seconds * 1000}-${seq++}`,
  event_type: type,
  timestamp: new Date(1_700_000_000_000 + seconds * 1000).toISOString(),
  workspace: 'ws',
  source_agent: 'a',
  source_plan_id: plan,
  source_plan_title: 'P',
  source_step_id: step,
  source_step_description: 'd',
  source_step_sequence: 1,
  payload: {},
});

describe("a step's status history", () => {
  it('gives each status change its duration, the last one up to now, whatever order the events came in', () => {
    const events = [
      at('step_completed', 95),
      at('step_blocked', 0),
      at('step_started', 12),
      at('step_unblocked', 10),
      at('step_started', 3, 'step_2'),
      at('plan_started', 1),
      at('step_completed', 50, 'step_1', 'other-plan'),
    ];
    const now = new Date(1_700_000_000_000 + 120_000).toISOString();
    const history = statusHistory(events, 'p1', 'step_1', now);
    expect(history.map((p) => [p.status, p.ms])).toEqual([
      ['blocked', 10_000],
      ['pending', 2_000],
      ['in_progress', 83_000],
      ['completed', 25_000],
    ]);
    expect(history.at(-1)?.until).toBeNull();
  });

  it('measures a step from its start to its end, or to now while it runs', () => {
    const start = '2026-01-01T10:00:00.000Z';
    expect(stepDuration({ started_at: start, completed_at: '2026-01-01T10:04:05.000Z' }, start)).toBe(245_000);
    expect(stepDuration({ started_at: start }, '2026-01-01T10:00:07.500Z')).toBe(7_500);
    expect(stepDuration({}, start)).toBeNull();
  });

  it('formats durations for labels', () => {
    expect([850, 12_400, 245_000, 7_380_000].map(formatDuration)).toEqual([
      '850 ms',
      '12 s',
      '4 min 05 s',
      '2 h 03 min',
    ]);
  });
});
