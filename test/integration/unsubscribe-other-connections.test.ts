import type { EventEnvelope } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { openAuth, rawClient, type RawClient } from '../security/support/raw-client.ts';

/**
 * Subscriptions belong to the agent. An unsubscribe on one of its connections used to reach only that connection's
 * stream: another connection of the agent went on pushing what the agent had asked to stop, and could collect
 * filters without bound by subscribing there and unsubscribing here.
 */
describe.each(STORE_KINDS)("an agent's unsubscribe on one connection (%s store)", (kind) => {
  let h: Harness | undefined;
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await h?.close();
  });
  const join = async (agentId: string) => {
    const c = await rawClient(h!.url, openAuth('ws', agentId));
    clients.push(c);
    const seen: EventEnvelope[] = [];
    c.socket.on('event', (e: EventEnvelope) => seen.push(e));
    return { c, seen };
  };

  it("stops the agent's other connections pushing it", async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto' });
    const a = await join('watcher');
    const b = await join('watcher');
    const control = await join('control');
    for (const { c } of [a, control])
      expect(await c.call('subscribeToTasks', { event_types: ['plan_created'], after_event: '$' })).toMatchObject({
        ok: true,
      });
    expect(await b.c.call('unsubscribe', { all: true })).toMatchObject({ ok: true });
    const writer = await join('writer');
    expect(await writer.c.call('createPlan', { title: 'after the unsubscribe', steps: ['one'] })).toMatchObject({
      ok: true,
    });
    // Delivered by now: the control connection, subscribed the same way, has it.
    await expect.poll(() => control.seen.map((e) => e.event_type)).toEqual(['plan_created']);
    expect(a.seen).toEqual([]);
  });
});
