import type { CallAck } from '@planhub/shared';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawSocket } from '../helpers/raw-socket.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

const send = (socket: Socket, payload: unknown) =>
  socket.timeout(10_000).emitWithAck('call', payload) as Promise<CallAck>;

/**
 * A socket client that puts request_id among the arguments, as MCP does, gets the same idempotency as one that sends
 * it beside them: before, the key was dropped with the arguments a tool does not know and a retry acted twice.
 */
describe.each(STORE_KINDS)('request_id inside args on the %s store', (kind) => {
  let h: Harness;
  let socket: Socket;
  let n = 0;

  beforeAll(async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto', limits: { callsPerSecond: 10_000 } });
    socket = await rawSocket(h.url, 'main');
    const created = await send(socket, { tool: 'createPlan', args: { title: 'T', steps: ['one'] } });
    expect(created.ok).toBe(true);
    expect((await send(socket, { tool: 'startPlan', args: {} })).ok).toBe(true);
  });
  afterAll(async () => {
    socket.disconnect();
    await h.close();
  });

  const stepCount = async () => {
    const ack = await send(socket, { tool: 'getPlanStatus', args: {} });
    if (!ack.ok) throw new Error(ack.error.message);
    return (ack.result as { steps: unknown[] }).steps.length;
  };

  it('answers a retry with the first answer and adds the step once', async () => {
    const call = { tool: 'addStep', args: { description: `retried ${++n}`, request_id: `in-args-${n}` } };
    const before = await stepCount();
    const first = await send(socket, call);
    const again = await send(socket, call);
    expect(first.ok).toBe(true);
    expect(again).toEqual(first);
    expect(await stepCount()).toBe(before + 1);
  });

  it('takes the same request_id beside and inside args as one', async () => {
    const id = `both-${++n}`;
    const before = await stepCount();
    const first = await send(socket, { tool: 'addStep', args: { description: 'both' }, request_id: id });
    const again = await send(socket, { tool: 'addStep', args: { description: 'both', request_id: id } });
    expect(first.ok).toBe(true);
    expect(again).toEqual(first);
    expect(await stepCount()).toBe(before + 1);
  });

  it("takes the one in args when a client stamps another beside them, so the caller's retry acts once", async () => {
    const before = await stepCount();
    const inArgs = `caller-${++n}`;
    // As a client library that gives every call an id of its own does: a fresh one beside args on each call.
    const first = await send(socket, {
      tool: 'addStep',
      args: { description: 'two ids', request_id: inArgs },
      request_id: `library-${n}-a`,
    });
    const again = await send(socket, {
      tool: 'addStep',
      args: { description: 'two ids', request_id: inArgs },
      request_id: `library-${n}-b`,
    });
    expect(first.ok).toBe(true);
    expect(again).toEqual(first);
    expect(await stepCount()).toBe(before + 1);
  });

  it('through the SDK, which stamps its own id on every call: the one in args makes its retry act once', async () => {
    const sdk = await h.client('sdk-caller');
    const args = { title: 'Once', steps: ['one'], request_id: `sdk-${++n}` };
    const first = await sdk.call('createPlan', args);
    const again = await sdk.call('createPlan', args);
    expect(again.plan_id).toBe(first.plan_id);
    const plans = (await sdk.getWorkspace({})).agents.find((a) => a.agent_id === 'sdk-caller')?.plans ?? [];
    expect(plans.filter((p) => p.title === 'Once')).toHaveLength(1);
  });

  it('refuses a request_id in args that is not one and changes nothing', async () => {
    const before = await stepCount();
    for (const bad of [42, '', 'x'.repeat(129)]) {
      const ack = await send(socket, { tool: 'addStep', args: { description: 'bad id', request_id: bad } });
      expect(ack).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
      if (!ack.ok) expect(ack.error.message).toMatch(/^args\.request_id must be a string of 1 to 128 characters/);
    }
    expect(await stepCount()).toBe(before);
  });
});
