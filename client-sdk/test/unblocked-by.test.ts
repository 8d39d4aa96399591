import { afterAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { EventOf, UnblockedBy } from '../src/index.ts';
import { createClient, unblockedBy } from '../src/index.ts';
import { envelope } from './support/envelope.ts';

const unblocked = (payload: EventOf<'step_unblocked'>['payload']): EventOf<'step_unblocked'> =>
  envelope('step_unblocked', payload);

describe('unblockedBy(event)', () => {
  const client = createClient({ url: 'http://127.0.0.1:1', agentId: 'typed' });
  afterAll(() => client.close());

  it("gives an onEvent('step_unblocked') listener the step that unblocked it without narrowing", () => {
    const off = client.onEvent('step_unblocked', (event) => {
      // The payload keeps both forms: the log holds events of the string form, written before the object.
      expectTypeOf(event.payload.unblocked_by).extract<string>().toEqualTypeOf<string>();
      expectTypeOf(event.payload.outputs).toEqualTypeOf<Record<string, unknown> | undefined>();
      const by = unblockedBy(event);
      expectTypeOf(by).toEqualTypeOf<UnblockedBy>();
      expectTypeOf(by.agent_id).toEqualTypeOf<string>();
      expectTypeOf(by.plan_id).toEqualTypeOf<string | null>();
      expectTypeOf(by.step_id).toEqualTypeOf<string>();
    });
    off();
  });

  it('hands on the object form as the server sends it', () => {
    const by = { agent_id: 'sub', plan_id: 'sp', step_id: 'step_1' };
    const event = unblocked({ received_outputs: ['sub:step_1'], outputs: {}, unblocked_by: by });
    expect(unblockedBy(event)).toBe(by);
  });

  it('reads the string form of earlier events as the object, with no plan', () => {
    const event = unblocked({ received_outputs: ['sub:step_1'], unblocked_by: 'sub:step_1' });
    expect(unblockedBy(event)).toEqual({ agent_id: 'sub', plan_id: null, step_id: 'step_1' });
  });

  it('splits the string form at the agent named beside it, whose id may contain ":"', () => {
    const named = unblocked({ received_outputs: [], unblocked_by: 'team:sub:step_3', unblocked_by_agent: 'team:sub' });
    expect(unblockedBy(named)).toEqual({ agent_id: 'team:sub', plan_id: null, step_id: 'step_3' });
    const unnamed = unblocked({ received_outputs: [], unblocked_by: 'team:sub:step_3' });
    expect(unblockedBy(unnamed)).toEqual({ agent_id: 'team:sub', plan_id: null, step_id: 'step_3' });
  });
});
