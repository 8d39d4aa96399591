import type { PlanHubError } from '@planhub/shared';
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { EventEnvelope, EventOf, TaskEvent, ToolResult } from '../src/index.ts';
import { createClient } from '../src/index.ts';
import { eventReader } from '../src/event-reader.ts';
import { envelope } from './support/envelope.ts';

const unblocked = envelope('step_unblocked', {
  received_outputs: ['sub:step_1'],
  outputs: { 'sub:step_1': { passed: true } },
  unblocked_by: { agent_id: 'sub', plan_id: 'sp', step_id: 'step_1' },
  unblocked_by_agent: 'sub',
});
const rejected = envelope('plan_rejected', { rejected_by: 'alice', agent_id: 'main', reason: 'too risky' });

/** The event a listener registered with `subscribe` receives. */
type EventOfListener<Subscribe extends (name: never, listener: never) => unknown> = Parameters<
  Parameters<Subscribe>[1]
>[0];

/** What an application writes in its listener: each check on event_type narrows the payload. */
const describeEvent = (event: TaskEvent): string => {
  if (event.event_type === 'step_unblocked') {
    expectTypeOf(event.payload.received_outputs).toEqualTypeOf<string[]>();
    expectTypeOf(event.payload.outputs).toEqualTypeOf<Record<string, unknown> | undefined>();
    const by = event.payload.unblocked_by;
    expectTypeOf(by).extract<string>().toEqualTypeOf<string>();
    if (typeof by === 'string') return `unblocked by ${by}`;
    expectTypeOf(by.agent_id).toEqualTypeOf<string>();
    expectTypeOf(by.plan_id).toEqualTypeOf<string | null>();
    return `unblocked by ${by.agent_id}:${by.step_id}`;
  }
  switch (event.event_type) {
    case 'plan_rejected':
      expectTypeOf(event.payload.reason).toEqualTypeOf<string | null>();
      return `rejected: ${event.payload.reason ?? '-'}`;
    case 'agent_offline':
      expectTypeOf(event.payload.reason).toEqualTypeOf<'disconnected' | 'node_lost'>();
      return event.payload.reason;
    case 'step_completed':
      expectTypeOf(event.payload.result).toEqualTypeOf<string | null>();
      return event.payload.result ?? '';
    default:
      // Fields no schema of the remaining types names are still there to read, but only as unknown.
      expectTypeOf(event.payload.received_outputs).toBeUnknown();
      return event.event_type;
  }
};

describe("the SDK's typed events", () => {
  const client = createClient({ url: 'http://127.0.0.1:1', agentId: 'typed' });
  afterAll(() => client.close());

  it("hands on('event') listeners the typed union, whose event_type narrows the payload", () => {
    expectTypeOf<EventOfListener<typeof client.on<'event'>>>().toEqualTypeOf<TaskEvent>();
    const read = eventReader(() => undefined);
    expect([unblocked, rejected].map((e) => describeEvent(read(e)!))).toEqual([
      'unblocked by sub:step_1',
      'rejected: too risky',
    ]);
  });

  it('hands onEvent(type) listeners that type only, with its payload', () => {
    expectTypeOf<EventOfListener<typeof client.onEvent<'step_unblocked'>>>().toEqualTypeOf<EventOf<'step_unblocked'>>();
    const off = client.onEvent('step_unblocked', (event) => {
      expectTypeOf(event.event_type).toEqualTypeOf<'step_unblocked'>();
      expectTypeOf(event.payload.received_outputs).toEqualTypeOf<string[]>();
    });
    off();
  });

  it("types getTaskEvents' events as the union", () => {
    expectTypeOf<ToolResult<'getTaskEvents'>['events']>().toEqualTypeOf<TaskEvent[]>();
    expectTypeOf(client.getTaskEvents).returns.resolves.toHaveProperty('events').toEqualTypeOf<TaskEvent[]>();
  });

  it('still takes listeners written for the untyped envelope', () => {
    expectTypeOf<TaskEvent>().toExtend<EventEnvelope>();
    const off = client.on('event', (event: EventEnvelope) => event.payload);
    off();
  });
});

describe("the SDK's event reader", () => {
  const reader = () => {
    const errors: PlanHubError[] = [];
    return { read: eventReader((error) => errors.push(error)), errors };
  };

  it('hands on an event it reads as it came, extra fields and all', () => {
    const { read, errors } = reader();
    const withExtra = { ...unblocked, trace_id: 't-1' };
    expect(read(withExtra)).toBe(withExtra);
    expect(errors).toEqual([]);
  });

  it('drops events of a type newer than it, and says so once per type', () => {
    const { read, errors } = reader();
    expect(read(envelope('step_reopened', {}))).toBeUndefined();
    expect(read(envelope('step_reopened', {}))).toBeUndefined();
    expect(read(envelope('plan_archived', {}))).toBeUndefined();
    expect(errors.map((e) => [e.code, e.message])).toEqual([
      ['FAILED_PRECONDITION', expect.stringMatching(/^Event type step_reopened is newer than this SDK/)],
      ['FAILED_PRECONDITION', expect.stringMatching(/^Event type plan_archived is newer than this SDK/)],
    ]);
  });

  it('drops events whose payload does not fit their type, naming where, once per type', () => {
    const { read, errors } = reader();
    const unfit = envelope('step_unblocked', { unblocked_by: 'sub:step_1' });
    expect(read(unfit)).toBeUndefined();
    expect(read(unfit)).toBeUndefined();
    expect(read(unblocked)).toBe(unblocked);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      code: 'INTERNAL',
      details: { event_type: 'step_unblocked', issues: [{ path: ['payload', 'received_outputs'] }] },
    });
  });
});
