import { describe, expect, it } from 'vitest';
import type { EventType } from '../src/index.ts';
import { EVENT_TYPES, TaskEventSchema, eventOf, typedEvent } from '../src/index.ts';
import { PAYLOADS, typedFixture } from './event-fixtures.ts';

const envelope = (event_type: string, payload: Record<string, unknown>) => ({
  ...typedFixture('step_added', 'sub', 'p1', 'step_1'),
  event_type,
  payload,
});

const progressBeforePercent = {
  completed: 1,
  total: 2,
  percentage: 50,
  failed: 0,
  skipped: 0,
  in_progress: 0,
  pending: 1,
  blocked: 0,
};

/** Payloads as earlier versions of the server wrote them, or as another dialect writes them, by event type. */
const EARLIER_FORMS: [EventType, string, Record<string, unknown>][] = [
  ['plan_completed', 'a progress without `percent`', { summary: null, progress: progressBeforePercent }],
  ['plan_cancelled', 'a progress without `percent`', { summary: 'x', progress: progressBeforePercent }],
  ['step_unblocked', 'the first string form', { received_outputs: ['sub:step_1'], unblocked_by: 'sub:step_1' }],
  [
    'step_unblocked',
    'the string form with its agent',
    { received_outputs: ['sub:step_1'], unblocked_by: 'sub:step_1', unblocked_by_agent: 'sub' },
  ],
  [
    'step_unblocked',
    'the object form of a step no plan names any more',
    { received_outputs: ['sub:step_1'], unblocked_by: { agent_id: 'sub', plan_id: null, step_id: 'step_1' } },
  ],
  [
    'plan_created',
    "004's numbered steps",
    {
      steps: [{ step_id: 'step_1', sequence: 1, description: 'one', index: 0, status: 'pending' }],
      dialect: '004',
      working_dir: null,
    },
  ],
  ['plan_started', "004's, without approval", { message: null, approval: 'not required (seed 004)' }],
  [
    'step_completed',
    "004's, with index and notes",
    { result: null, error: null, index: 0, notes: null, previous_status: 'in_progress' },
  ],
  ['plan_modified', "004's step change, without a reason", { change: 'step_status', status: 'completed', index: 0 }],
  ['plan_modified', "002's decision", { state: 'approved', step_id: 30, reason: 'r', decided_by: 'alice' }],
  ['todos_updated', "002's", { agent_id: 'sub', dialect: '002', todos: [], pending: 0 }],
  ['task_unblocked', 'a detached task', { task_id: '2', subject: 'U', unblocked_by: '1', reason: 'deleted' }],
];

describe('event payloads', () => {
  it.each(EVENT_TYPES)('reads a %s as the server writes it today', (type) => {
    const event = typedFixture(type, 'sub', 'p1', 'step_1');
    expect(typedEvent(event)).toBe(event);
    expect(eventOf(event, type)?.payload).toEqual(PAYLOADS[type]);
  });

  it.each(EARLIER_FORMS)('reads a %s of %s, keeping its extra fields', (type, _form, payload) => {
    const event = envelope(type, payload);
    expect(TaskEventSchema.safeParse(event).error).toBeUndefined();
    // The event itself, so fields the schemas do not name, also in nested objects, are all there.
    expect(typedEvent(event)).toBe(event);
    expect(typedEvent(event)?.payload).toEqual(payload);
  });

  it('does not read an event type it does not know, nor a payload that does not fit its type', () => {
    expect(typedEvent(envelope('step_reopened', { result: null, error: null }))).toBeUndefined();
    expect(typedEvent(envelope('step_unblocked', { unblocked_by: 'sub:step_1' }))).toBeUndefined();
    expect(typedEvent(envelope('agent_offline', { last_seen_at: 't0', reason: 42 }))).toBeUndefined();
    expect(typedEvent({ event_type: 'plan_started' })).toBeUndefined();
    expect(typedEvent(null)).toBeUndefined();
  });
});
