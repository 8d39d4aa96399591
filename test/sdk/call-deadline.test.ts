import type { PlanHubClient } from '@planhub/client-sdk';
import { connect } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { scriptedNode } from '../helpers/scripted-node.ts';

/**
 * A caller's `timeoutMs` bounds the whole call: no retry once it has passed, no attempt sent without time left, a
 * long-poll's wait cut to fit it, and a timeout that names the caller's figure (it used to say "-3155 ms").
 */
describe("a caller's timeoutMs is one deadline for the whole call", () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });
  const client = async (url: string, backoff = { baseMs: 10, maxMs: 20 }) => {
    const c: PlanHubClient = await connect({ url, agentId: 'a', backoff });
    cleanups.push(() => c.close());
    return c;
  };

  it('does not retry a timeout of its own deadline', async () => {
    const node = await scriptedNode(() => {
      // Never answers: the first attempt runs to the caller's deadline.
    });
    cleanups.push(node.close);
    const c = await client(node.url);
    const error = await c.getPlanStatus({}, { timeoutMs: 300 }).catch((err: unknown) => err);
    expect(error).toMatchObject({ code: 'DEADLINE_EXCEEDED', retryable: true, message: 'no answer within 300 ms' });
    expect(node.calls).toHaveLength(1);
  });

  it('stops retrying a retryable refusal at the deadline, and says what the last attempt got', async () => {
    const node = await scriptedNode((_call, ack) =>
      ack({ ok: false, error: { code: 'UNAVAILABLE', message: 'Redis is restarting' } }),
    );
    cleanups.push(node.close);
    // Backoffs of up to 1 s: the 8 retries would take seconds, far past a 400 ms deadline.
    const c = await client(node.url, { baseMs: 1000, maxMs: 1000 });
    const error = await c.addStep({ description: 'x' }, { timeoutMs: 400 }).catch((err: unknown) => err);
    expect(error).toMatchObject({ code: 'DEADLINE_EXCEEDED', retryable: true });
    expect((error as Error).message).toMatch(
      /^no answer within 400 ms \(last attempt: UNAVAILABLE: Redis is restarting\)(, \d+ attempts over \d+\.\d s)?$/,
    );
    expect(node.calls.length).toBeLessThan(9);
    // The error names the request_id every attempt carried, so the caller can retry it safely.
    expect((error as { requestId?: string }).requestId).toBe(node.calls[0]?.request_id);
  });

  it("cuts a long-poll's wait to the caller's deadline, and never to a negative figure", async () => {
    const node = await scriptedNode((call, ack) => {
      // The first attempt fails 600 ms into its wait (its node lost the store); the one sent again is answered.
      if (node.calls.length === 1)
        setTimeout(() => ack({ ok: false, error: { code: 'UNAVAILABLE', message: 'x' } }), 600);
      else ack({ ok: true, result: { events: [], count: 0, last_event_id: null } });
    });
    cleanups.push(node.close);
    const c = await client(node.url);
    await c.getTaskEvents({ event_types: ['plan_cancelled'], timeout: 30 }, { timeoutMs: 2000 });
    const waits = node.calls.map((call) => call.args.timeout as number);
    expect(waits).toHaveLength(2);
    // The node's wait ends before the caller's deadline, leaving its answer time to come back.
    expect(waits[0]).toBeGreaterThan(0);
    expect(waits[0]).toBeLessThan(2);
    // Sent again at least 600 ms later: within what is left of the deadline (1.4 s at most), and never below 0.
    expect(waits[1]).toBeGreaterThanOrEqual(0);
    expect(waits[1]).toBeLessThanOrEqual(1.4);
  });

  it("sends a startPlan given a deadline with wait=false, since the node's wait for a decision has no bound", async () => {
    const node = await scriptedNode((_call, ack) =>
      ack({ ok: true, result: { plan_id: 'p', status: 'awaiting_approval', message: 'm' } }),
    );
    cleanups.push(node.close);
    const c = await client(node.url);
    expect(await c.startPlan({}, { timeoutMs: 1000 })).toMatchObject({ status: 'awaiting_approval' });
    await c.startPlan({});
    await c.startPlan({ message: 'why' }, { timeoutMs: 1000 });
    expect(node.calls.map((call) => call.args)).toEqual([{ wait: false }, {}, { message: 'why', wait: false }]);
  });

  it('sends nothing when the deadline passed while it waited for a connection', async () => {
    let connections = 0;
    const node = await scriptedNode((_call, ack) => ack({ ok: true, result: {} }));
    cleanups.push(node.close);
    // After the first connection the node keeps new ones waiting for longer than the caller's deadline.
    node.io.use((_socket, next) => (++connections === 1 ? next() : setTimeout(next, 2000)));
    const c = await client(node.url);
    node.io.disconnectSockets(true);
    const error = await c.getPlanStatus({}, { timeoutMs: 300 }).catch((err: unknown) => err);
    expect(error).toMatchObject({ code: 'DEADLINE_EXCEEDED' });
    expect((error as Error).message).toMatch(/^no answer within 300 ms \(last attempt: not connected/);
    expect(node.calls).toHaveLength(0);
  });
});
