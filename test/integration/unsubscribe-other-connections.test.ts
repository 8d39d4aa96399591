import type { EventEnvelope } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { openAuth, rawClient, type RawClient } from '../security/support/raw-client.ts';

/**
 * Subscriptions are stored per agent, and each connection's stream keeps the filters it started with. Two rules
 * hold together: another connection of the agent (a second dashboard tab, which clears and resubscribes on every
 * connect) never silences a live stream; and a stream's filters are the agent's stored subscriptions again at its
 * next subscribe, so a connection cannot collect filters without bound (subscribe here, unsubscribe there).
 */
describe.each(STORE_KINDS)("an agent's subscriptions across its connections (%s store)", (kind) => {
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
    return { c, seen, types: () => seen.map((e) => e.event_type) };
  };
  const subscribe = async (c: RawClient, eventTypes: string[]) =>
    expect(await c.call('subscribeToTasks', { event_types: eventTypes, after_event: '$' })).toMatchObject({ ok: true });

  it('keeps a connection live while another one of the agent clears and resubscribes', async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto' });
    const first = await join('board');
    const second = await join('board');
    await subscribe(first.c, ['plan_created']);
    expect(await second.c.call('unsubscribe', { all: true })).toMatchObject({ ok: true });
    await subscribe(second.c, ['plan_created']);
    const writer = await join('writer');
    expect(await writer.c.call('createPlan', { title: 'seen by both', steps: ['one'] })).toMatchObject({ ok: true });
    await poll(() => [first.types(), second.types()]).toEqual([['plan_created'], ['plan_created']]);
  });

  it("takes the agent's stored subscriptions again at a connection's next subscribe", async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto' });
    const watcher = await join('watcher');
    const other = await join('watcher');
    const control = await join('control');
    await subscribe(watcher.c, ['plan_created']);
    await subscribe(control.c, ['plan_created', 'plan_started']);
    // Removed on another connection, then the watcher subscribes to something else: plan_created is no longer its.
    expect(await other.c.call('unsubscribe', { all: true })).toMatchObject({ ok: true });
    await subscribe(watcher.c, ['plan_started']);
    const writer = await join('writer');
    expect(await writer.c.call('createPlan', { title: 'work', steps: ['one'] })).toMatchObject({ ok: true });
    expect(await writer.c.call('startPlan', {})).toMatchObject({ ok: true });
    // Both streams have had both events by then: the watcher's plan_created, had it come, came before its plan_started.
    await poll(() => [control.types(), watcher.types()]).toEqual([['plan_created', 'plan_started'], ['plan_started']]);
    expect(watcher.types()).toEqual(['plan_started']);
  });
});
