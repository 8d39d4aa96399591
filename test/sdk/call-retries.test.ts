import type { EventEnvelope, PlanHubClient } from '@planhub/client-sdk';
import { PlanHubClientCore, connect } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { recordEvents } from '../helpers/event-log.ts';
import { eventually } from '../helpers/eventually.ts';
import { scriptedNode } from '../helpers/scripted-node.ts';

const event = (id: string): EventEnvelope => ({
  event_id: id,
  event_type: 'step_completed',
  timestamp: new Date(0).toISOString(),
  workspace: 'ws',
  source_agent: 'other',
  source_plan_id: 'p',
  source_plan_title: 'P',
  source_step_id: `step_${id}`,
  source_step_description: 'x',
  source_step_sequence: 1,
  payload: { result: null, error: null },
});

describe('SDK calls and resumption against a scripted node', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });
  const client = async (url: string) => {
    const c: PlanHubClient = await connect({ url, agentId: 'a', backoff: { baseMs: 10, maxMs: 20 } });
    cleanups.push(() => c.close());
    return c;
  };

  it('retries UNAVAILABLE 8 times by default, enough to ride out a Redis restart of a few seconds', async () => {
    let attempts = 0;
    const node = await scriptedNode((_call, ack) => {
      attempts += 1;
      ack({ ok: false, error: { code: 'UNAVAILABLE', message: 'Redis is restarting' } });
    });
    cleanups.push(node.close);
    const c = await client(node.url);
    await expect(c.getPlanStatus({})).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(attempts).toBe(9);
  });

  it('retries a timed-out mutating call with the same request_id', async () => {
    let attempt = 0;
    const node = await scriptedNode((call, ack) => {
      attempt += 1;
      // The first attempt is "lost": no answer ever comes, so the client's deadline passes.
      if (attempt > 1) ack({ ok: true, result: { plan_id: 'p', step: {}, attempt } });
    });
    cleanups.push(node.close);
    // The client's timeoutMs is each attempt's; a call's own timeoutMs bounds all of its attempts (call-deadline.test.ts).
    const c = await connect({ url: node.url, agentId: 'a', timeoutMs: 200, backoff: { baseMs: 10, maxMs: 20 } });
    cleanups.push(() => c.close());
    const result = await c.addStep({ description: 'x' });
    expect(result).toMatchObject({ attempt: 2 });
    expect(node.calls).toHaveLength(2);
    expect(node.calls[0]?.request_id).toMatch(/\S/);
    expect(node.calls[1]?.request_id).toBe(node.calls[0]?.request_id);
  });

  it('retries UNAVAILABLE with the same request_id, and does not retry other errors', async () => {
    const node = await scriptedNode((call, ack) => {
      if (call.tool === 'setStepStatus')
        ack({ ok: false, error: { code: 'FAILED_PRECONDITION', message: 'step_1 already ended' } });
      else if (node.calls.filter((c) => c.tool === call.tool).length < 3)
        ack({ ok: false, error: { code: 'UNAVAILABLE', message: 'store unreachable' } });
      else ack({ ok: true, result: { ok: 'third time' } });
    });
    cleanups.push(node.close);
    const c = await client(node.url);
    expect(await c.completePlan({ status: 'completed' })).toEqual({ ok: 'third time' });
    const ids = node.calls.map((x) => x.request_id);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(1);

    await expect(c.setStepStatus({ step_id: 'step_1', status: 'completed' })).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      retryable: false,
    });
    expect(node.calls.filter((x) => x.tool === 'setStepStatus')).toHaveLength(1);
  });

  it('says how many attempts it made and over how long when it gives up after retrying', async () => {
    const node = await scriptedNode(() => {
      // Never answers: every attempt runs to its deadline.
    });
    cleanups.push(node.close);
    const c = await connect({ url: node.url, agentId: 'a', timeoutMs: 150, backoff: { baseMs: 10, maxMs: 20 } });
    cleanups.push(() => c.close());
    const started = Date.now();
    const error = await c.getPlanStatus({}, { retries: 2 }).catch((err: unknown) => err);
    const elapsedS = (Date.now() - started) / 1000;
    expect(error).toMatchObject({ code: 'DEADLINE_EXCEEDED', retryable: true });
    const message = (error as Error).message;
    expect(message).toMatch(/^no answer within 150 ms, 3 attempts over \d+\.\d s$/);
    expect(node.calls).toHaveLength(3);
    const saidS = Number(/over (\S+) s$/.exec(message)?.[1]);
    expect(saidS).toBeGreaterThanOrEqual(0.4);
    expect(Math.abs(saidS - elapsedS)).toBeLessThanOrEqual(0.25);
    // One attempt, no retry: its own deadline is the whole story.
    await expect(c.getPlanStatus({}, { retries: 0 })).rejects.toMatchObject({
      code: 'DEADLINE_EXCEEDED',
      message: 'no answer within 150 ms',
    });
  });

  it('gives startPlan with wait=false a deadline (only a waiting startPlan waits without one)', async () => {
    let attempt = 0;
    const node = await scriptedNode((_call, ack) => {
      attempt += 1;
      if (attempt > 1) ack({ ok: true, result: { plan_id: 'p', status: 'awaiting_approval', message: 'm' } });
    });
    cleanups.push(node.close);
    const c = await connect({ url: node.url, agentId: 'a', timeoutMs: 200, backoff: { baseMs: 10, maxMs: 20 } });
    cleanups.push(() => c.close());
    expect(await c.startPlan({ wait: false })).toMatchObject({ status: 'awaiting_approval' });
    expect(node.calls).toHaveLength(2);
  });

  it('sends no request_id on read-only calls', async () => {
    const node = await scriptedNode((_call, ack) => ack({ ok: true, result: { plan_id: 'p' } }));
    cleanups.push(node.close);
    const c = await client(node.url);
    await c.getPlanStatus({});
    await c.addStep({ description: 'x' });
    expect(node.calls.map((x) => [x.tool, typeof x.request_id])).toEqual([
      ['getPlanStatus', 'undefined'],
      ['addStep', 'string'],
    ]);
  });

  it('dials again when its token source fails, instead of an unhandled rejection and no connection', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    cleanups.push(() => process.off('unhandledRejection', record));
    const node = await scriptedNode((_call, ack) => ack({ ok: true, result: {} }));
    cleanups.push(node.close);
    let fetches = 0;
    const token = () => (++fetches === 1 ? Promise.reject(new Error('token service down')) : Promise.resolve('t'));
    const c = await connect({ url: node.url, agentId: 'a', token, backoff: { baseMs: 10, maxMs: 20 } });
    cleanups.push(() => c.close());
    expect(c.state).toBe('connected');
    expect(fetches).toBe(2);
    expect(unhandled).toEqual([]);
  });

  it('stays closed when closed while its token is being fetched', async () => {
    const node = await scriptedNode((_call, ack) => ack({ ok: true, result: {} }));
    cleanups.push(node.close);
    let release: (token: string) => void = () => {};
    const fetched = new Promise<string>((resolve) => (release = resolve));
    const core = new PlanHubClientCore({ url: node.url, agentId: 'a', token: () => fetched });
    const opening = core.open().catch((err: unknown) => err);
    core.close();
    release('t');
    await fetched;
    expect(await opening).toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: 'the client is closed: closed by the application',
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(core.state).toBe('closed');
  });

  it('resumes from the last event seen when the application subscribes while reconnecting', async () => {
    let connection = 0;
    const node = await scriptedNode((call, ack, socket) => {
      const answer = { subscription_id: `sub_${call.args.event_types as string}`, agent_id: '*', replayed: 0 };
      if (connection++ === 0) {
        ack({ ok: true, result: { ...answer, event_types: ['step_completed'], last_event_id: '0-0' } });
        socket.emit('event', event('1-0'));
        setImmediate(() => socket.disconnect(true));
      } else ack({ ok: true, result: { ...answer, event_types: call.args.event_types, last_event_id: '1-0' } });
    });
    cleanups.push(node.close);
    const c = await client(node.url);
    const seen = recordEvents(c);
    let later: Promise<unknown> | undefined;
    // The application's own new subscription goes out on the new connection, possibly before the SDK's renewal.
    c.on('state', (state) => {
      if (state === 'disconnected') later ??= c.subscribeToTasks({ event_types: ['plan_created'] });
    });
    await c.subscribeToTasks({ event_types: ['step_completed'] });
    await seen.next((e) => e.event_id === '1-0');
    await later;
    await eventually(() => expect(node.calls).toHaveLength(3));
    // Whichever of them starts the new connection's stream resumes it after 1-0, so nothing in the gap is lost.
    for (const call of node.calls.slice(1)) expect(call.args.after_event).toBe('1-0');
  });

  it('renews its subscriptions after a reconnect from the last event it saw, delivering each event once', async () => {
    let connection = 0;
    const node = await scriptedNode((call, ack, socket) => {
      if (call.tool !== 'subscribeToTasks') return ack({ ok: true, result: {} });
      connection += 1;
      const answer = { subscription_id: 'sub_1', agent_id: '*', event_types: ['step_completed'], replayed: 0 };
      if (connection === 1) {
        // Live events, then the node drops the connection.
        ack({ ok: true, result: { ...answer, last_event_id: '0-0' } });
        socket.emit('event', event('1-0'));
        socket.emit('event', event('2-0'));
        setImmediate(() => socket.disconnect(true));
      } else {
        // The resumed stream: a replay that overlaps what the client already saw, then something new.
        socket.emit('event', event('2-0'));
        socket.emit('event', event('3-0'));
        ack({ ok: true, result: { ...answer, replayed: 2, last_event_id: '3-0' } });
      }
    });
    cleanups.push(node.close);
    const c = await client(node.url);
    const seen = recordEvents(c);
    const reconnected = new Promise<void>((resolve) => c.on('reconnected', resolve));
    const first = await c.subscribeToTasks({ event_types: ['step_completed'] });
    expect(first).toMatchObject({ subscription_id: 'sub_1' });
    await reconnected;
    await seen.next((e) => e.event_id === '3-0');
    expect(seen.events.map((e) => e.event_id)).toEqual(['1-0', '2-0', '3-0']);
    const renewals = node.calls.filter((x) => x.tool === 'subscribeToTasks');
    expect(renewals.map((x) => x.args)).toEqual([
      { event_types: ['step_completed'] },
      { event_types: ['step_completed'], after_event: '2-0' },
    ]);
  });
});
