import type { EventEnvelope } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { eventLine } from '../src/cli/event-line.ts';

const envelope = (over: Partial<EventEnvelope>): EventEnvelope => ({
  event_id: '1-0',
  timestamp: '2026-01-02T03:04:05.678Z',
  workspace: 'ws',
  source_agent: 'main',
  source_plan_id: null,
  source_plan_title: null,
  source_step_id: null,
  source_step_description: null,
  source_step_sequence: null,
  event_type: 'plan_started',
  payload: {},
  ...over,
});

describe('planhub events lines', () => {
  it("name the event's plan once, after who, even when the payload repeats it", () => {
    const line = eventLine(
      envelope({
        event_type: 'mode_changed',
        source_plan_id: 'plan_1',
        payload: { agent_id: 'main', from: 'plan', to: 'act', goal: null, plan_id: 'plan_1' },
      }),
    );
    expect(line).toBe('03:04:05.678  mode_changed        main  plan_id=plan_1  from=plan  to=act');
  });

  it('leave the plan out of an event that belongs to none', () => {
    expect(eventLine(envelope({ event_type: 'agent_online', payload: { last_seen_at: 'now' } }))).toBe(
      '03:04:05.678  agent_online        main  last_seen_at=now',
    );
  });
});
