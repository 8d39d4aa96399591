import type { PlanHubClient, PlanHubError } from '@planhub/client-sdk';
import { connect } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { recordEvents } from '../helpers/event-log.ts';
import { scriptedNode } from '../helpers/scripted-node.ts';

const event = (id: string, event_type: string, payload: Record<string, unknown>) => ({
  event_id: id,
  event_type,
  timestamp: new Date(0).toISOString(),
  workspace: 'ws',
  source_agent: 'other',
  source_plan_id: 'p',
  source_plan_title: 'P',
  source_step_id: 'step_1',
  source_step_description: 'x',
  source_step_sequence: 1,
  payload,
});

const completed = (id: string) => event(id, 'step_completed', { result: 'done', error: null });
/** A type a newer node may send: this SDK has no schema for it. */
const newer = (id: string) => event(id, 'step_reopened', { reason: 'flaky' });
const unfit = (id: string) => event(id, 'step_unblocked', { unblocked_by: 'sub:step_1' });
const unblocked = (id: string) =>
  event(id, 'step_unblocked', { received_outputs: ['sub:step_1'], unblocked_by: 'sub:step_1' });

describe('events the SDK cannot read as the typed union, from a scripted node', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });
  const client = async (url: string) => {
    const c: PlanHubClient = await connect({ url, agentId: 'a' });
    cleanups.push(() => c.close());
    const errors: PlanHubError[] = [];
    c.on('error', (error) => errors.push(error));
    return { c, errors };
  };

  it('drops pushed events of an unknown type or an unfit payload, reports each type once, and goes on', async () => {
    const node = await scriptedNode((_call, ack, socket) => {
      ack({ ok: true, result: { subscription_id: 's', agent_id: '*', event_types: [], last_event_id: '0-0' } });
      for (const e of [completed('1-0'), newer('2-0'), unfit('3-0'), newer('4-0'), unblocked('5-0')])
        socket.emit('event', e);
    });
    cleanups.push(node.close);
    const { c, errors } = await client(node.url);
    const seen = recordEvents(c);
    await c.subscribeToTasks({ event_types: ['step_completed', 'step_unblocked'] });
    await seen.next((e) => e.event_id === '5-0');
    expect(seen.events.map((e) => e.event_id)).toEqual(['1-0', '5-0']);
    expect(errors.map((e) => e.code)).toEqual(['FAILED_PRECONDITION', 'INTERNAL']);
    expect(c.lastEventId).toBe('5-0');
  });

  it("reads getTaskEvents' events the same way, keeping the node's cursor", async () => {
    const node = await scriptedNode((_call, ack) =>
      ack({
        ok: true,
        result: { events: [completed('1-0'), newer('2-0'), unblocked('3-0')], count: 3, last_event_id: '3-0' },
      }),
    );
    cleanups.push(node.close);
    const { c, errors } = await client(node.url);
    const page = await c.getTaskEvents({});
    expect(page).toMatchObject({ count: 2, last_event_id: '3-0' });
    expect(page.events.map((e) => e.event_type)).toEqual(['step_completed', 'step_unblocked']);
    const first = page.events[0];
    expect(first?.event_type === 'step_completed' && first.payload.result).toBe('done');
    expect(errors.map((e) => e.code)).toEqual(['FAILED_PRECONDITION']);
  });
});
