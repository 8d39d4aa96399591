import type { PlanHubClient } from '@planhub/client-sdk';
import type { CallAck } from '@planhub/shared';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { rawSocket } from '../helpers/raw-socket.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { CASES } from './bad-input-cases.ts';

const send = (socket: Socket, payload: unknown) =>
  socket.timeout(10_000).emitWithAck('call', payload) as Promise<CallAck>;

describe.each(STORE_KINDS)('malformed calls on the %s store', (kind) => {
  let h: Harness;
  let main: PlanHubClient;
  let socket: Socket;
  let planId: string;

  /** Everything a bad call could have touched: the plan, the agent's view of it, and the workspace log. */
  const snapshot = async () => ({
    plan: await main.getPlanStatus({}),
    log: await h.server.services.store.readEvents('ws', { count: 10_000 }),
    events: await main.getTaskEvents({ limit: 500 }),
  });

  beforeAll(async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto', limits: { callsPerSecond: 10_000 } });
    main = await h.client('main');
    planId = (await main.createPlan({ title: 'Target', steps: ['one', 'two', 'three'] })).plan_id;
    await main.startPlan({});
    await main.setStepStatus({ step_id: 'step_1', status: 'completed' });
    socket = await rawSocket(h.url, 'main');
  });
  afterAll(async () => {
    socket.disconnect();
    await h.close();
  });

  it.each(CASES)('answers $name with $code and changes nothing', async ({ payload, code, message }) => {
    const before = await snapshot();
    const ack = await send(socket, payload);
    expect(ack.ok).toBe(false);
    if (ack.ok) return;
    expect(ack.error.code).toBe(code);
    expect(ack.error.message).toMatch(message);
    // Short enough for a model's context, and never the oversized input echoed back.
    expect(ack.error.message.length).toBeLessThan(2000);
    expect(JSON.stringify(ack.error).length).toBeLessThan(5000);
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a change to another agent’s plan and changes nothing', async () => {
    const other = await rawSocket(h.url, 'intruder');
    try {
      // A new agent's first connection is announced (agent_online) after its handshake, not within it: the
      // snapshot is taken once that is in the log, so only the refused call could change it.
      await poll(async () =>
        (await h.server.services.store.readEvents('ws', { count: 10_000 })).some(
          (e) => e.event_type === 'agent_online' && e.source_agent === 'intruder',
        ),
      ).toBe(true);
      const before = await snapshot();
      const ack = await send(other, {
        tool: 'setStepStatus',
        args: { plan_id: planId, step_id: 'step_2', status: 'completed' },
      });
      expect(ack).toMatchObject({
        ok: false,
        error: { code: 'PERMISSION_DENIED', message: expect.stringMatching(/belongs to agent main/) as string },
      });
      expect(await snapshot()).toEqual(before);
    } finally {
      other.disconnect();
    }
    // Its disconnection is announced (agent_offline) after the socket closed: in the log before the next test's
    // snapshot, so that snapshot sees only what its own call does.
    await poll(async () =>
      (await h.server.services.store.readEvents('ws', { count: 10_000 })).some(
        (e) => e.event_type === 'agent_offline' && e.source_agent === 'intruder',
      ),
    ).toBe(true);
  });

  it('ignores a call sent without an acknowledgement callback', async () => {
    const before = await snapshot();
    socket.emit('call', { tool: 'addStep', args: { description: 'sent without ack' } });
    // The socket handles events in order: once a later call is answered, the unacknowledged one was dropped.
    expect(await send(socket, { tool: 'getPlanStatus', args: {} })).toMatchObject({ ok: true });
    expect(await snapshot()).toEqual(before);
  });

  it('answers an event other than "call" that asks for an answer, saying which event to send', async () => {
    const before = await snapshot();
    for (const event of ['bogus', 'createPlan', 'calls'])
      expect(
        await socket.timeout(5000).emitWithAck(event, { tool: 'addStep', args: { description: 'wrong event' } }),
      ).toEqual({
        ok: false,
        error: {
          code: 'INVALID_ARGUMENT',
          message: expect.stringMatching(
            new RegExp(`^Unknown event "${event}": this node answers only "call" events`),
          ) as string,
        },
      });
    // Without an acknowledgement it is dropped, as an unacknowledged call is.
    socket.emit('bogus', { tool: 'addStep', args: { description: 'wrong event' } });
    expect(await send(socket, { tool: 'getPlanStatus', args: {} })).toMatchObject({ ok: true });
    expect(await snapshot()).toEqual(before);
  });

  it('drops a frame over the payload limit by closing that connection only, and keeps serving', async () => {
    const big = await rawSocket(h.url, 'main');
    const closed = new Promise<string>((resolve) => big.once('disconnect', resolve));
    big.emit('call', { tool: 'addStep', args: { description: 'x'.repeat(2_000_000) } }, () => {});
    expect(await closed).toMatch(/transport close|io server disconnect/);
    expect(await send(socket, { tool: 'getPlanStatus', args: {} })).toMatchObject({ ok: true });
  });

  it('keeps serving well-formed calls after all of them', async () => {
    const ack = await send(socket, { tool: 'setStepStatus', args: { step_id: 'step_2', status: 'in_progress' } });
    expect(ack).toMatchObject({ ok: true, result: { step: { id: 'step_2', status: 'in_progress' } } });
    const plan = await main.getPlanStatus({});
    expect(plan.steps.map((s) => [s.id, s.status])).toEqual([
      ['step_1', 'completed'],
      ['step_2', 'in_progress'],
      ['step_3', 'pending'],
    ]);
  });
});
