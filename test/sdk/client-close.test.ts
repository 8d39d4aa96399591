import type { PlanHubClient } from '@planhub/client-sdk';
import { PlanHubError, connect, createClient } from '@planhub/client-sdk';
import type { PlanHubServer } from '@planhub/server';
import { createServer } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { refusingPort } from '../helpers/free-port.ts';
import { scriptedNode } from '../helpers/scripted-node.ts';
import { settledWithin } from '../helpers/within.ts';

/** A client never hangs: closing it ends what it was waiting for, and a stuck token source does not stop it. */
describe('an SDK client that closes or cannot get a token', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it("ends a startPlan waiting for a person's decision, and every call after, when it is closed", async () => {
    const server: PlanHubServer = createServer({ port: 0, logLevel: 'silent' });
    cleanups.push(() => server.close());
    const { url } = await server.listen();
    const agent: PlanHubClient = await connect({ url, agentId: 'worker', workspace: 'ws' });
    const viewer: PlanHubClient = await connect({ url, agentId: 'viewer', workspace: 'ws', role: 'user' });
    cleanups.push(
      () => agent.close(),
      () => viewer.close(),
    );
    const { plan_id } = await agent.createPlan({ title: 'needs a yes', steps: ['one'] });
    const waiting = agent.startPlan({ plan_id });
    await eventually(async () => expect((await viewer.getPlanStatus({ plan_id })).status).toBe('awaiting_approval'));
    agent.close();
    const ended = await settledWithin(waiting, 3000);
    expect(ended).toBeInstanceOf(PlanHubError);
    // Not retryable: retrying, as the docs advise for a retryable error, would never end on a client that is closed.
    expect(ended).toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: 'the client is closed: closed by the application',
      retryable: false,
    });
    await expect(agent.getPlanStatus({ plan_id })).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: 'the client is closed: closed by the application',
      retryable: false,
    });
    await expect(agent.open()).rejects.toMatchObject({ code: 'FAILED_PRECONDITION', retryable: false });
  });

  it('ends a call whose answer never comes at once when it is closed, not at its deadline', async () => {
    const node = await scriptedNode(() => {
      // Never answers.
    });
    cleanups.push(node.close);
    const client = await connect({ url: node.url, agentId: 'a', timeoutMs: 60_000 });
    const pending = client.getPlanStatus({});
    await eventually(() => expect(node.calls).toHaveLength(1));
    client.close();
    expect(await settledWithin(pending, 3000)).toMatchObject({ code: 'FAILED_PRECONDITION', retryable: false });
  });

  it('ends each of many calls in flight when it is closed, with no warning of leaked listeners', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    cleanups.push(() => process.off('warning', onWarning));
    const node = await scriptedNode(() => {
      // Never answers.
    });
    cleanups.push(node.close);
    const client = await connect({ url: node.url, agentId: 'a', timeoutMs: 60_000 });
    const pending = Array.from({ length: 25 }, () => client.getPlanStatus({}));
    await eventually(() => expect(node.calls).toHaveLength(25));
    client.close();
    const ended = await Promise.all(pending.map((call) => settledWithin(call, 3000)));
    expect(ended.map((e) => (e as PlanHubError).code)).toEqual(Array(25).fill('FAILED_PRECONDITION'));
    // A warning is emitted on the next tick after the listener that passes the limit.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
  });

  it('ends an open() still dialing, not retryably, when the application closes the client', async () => {
    const client = createClient({
      url: `http://127.0.0.1:${await refusingPort()}`,
      agentId: 'a',
      connectTimeoutMs: 60_000,
    });
    const opening = client.open();
    client.close();
    expect(await settledWithin(opening, 3000)).toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: 'the client is closed: closed by the application',
      retryable: false,
    });
  });

  it("ends calls with the node's own refusal when that refusal closed it, not as closed by the application", async () => {
    const node = await scriptedNode(() => {
      // Never answers.
    });
    cleanups.push(node.close);
    // The first handshake is admitted; every later one is refused for good, as an expired token is on a reconnect.
    let handshakes = 0;
    node.io.use((_socket, next) =>
      next(
        ++handshakes === 1
          ? undefined
          : Object.assign(new Error('The token expired.'), {
              data: { code: 'UNAUTHENTICATED', message: 'The token expired.' },
            }),
      ),
    );
    const client = await connect({ url: node.url, agentId: 'a', backoff: { baseMs: 10, maxMs: 20 } });
    cleanups.push(() => client.close());
    node.io.disconnectSockets(true);
    await eventually(() => expect(client.state).toBe('closed'));
    await expect(client.getPlanStatus({})).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
      message: 'The token expired.',
    });
  });

  it('dials again when a token fetch never answers', async () => {
    const node = await scriptedNode((_call, ack, socket) => {
      ack({ ok: true, result: {} });
      setImmediate(() => socket.disconnect(true));
    });
    cleanups.push(node.close);
    let fetches = 0;
    const token = () => (++fetches === 2 ? new Promise<string>(() => {}) : Promise.resolve(`t${fetches}`));
    const client = await connect({
      url: node.url,
      agentId: 'a',
      token,
      tokenTimeoutMs: 200,
      backoff: { baseMs: 10, maxMs: 20 },
    });
    cleanups.push(() => client.close());
    // The node drops the connection after this call; the next token fetch hangs, the one after it answers.
    await client.getPlanStatus({});
    await eventually(() => expect(fetches).toBeGreaterThanOrEqual(3));
    await eventually(() => expect(client.state).toBe('connected'));
  });
});

describe('an SDK call with arguments that are not an object', () => {
  it('is refused by the node with INVALID_ARGUMENT, not a TypeError in the client', async () => {
    const server: PlanHubServer = createServer({ port: 0, logLevel: 'silent' });
    const { url } = await server.listen();
    const client = await connect({ url, agentId: 'a', workspace: 'ws' });
    try {
      for (const args of [null, 'subscribe me'])
        await expect(client.call('subscribeToTasks', args as never)).rejects.toMatchObject({
          code: 'INVALID_ARGUMENT',
        });
      const executed = (await client.execute('subscribeToTasks', 'null')) as { error?: unknown };
      expect(typeof executed.error).toBe('string');
    } finally {
      client.close();
      await server.close();
    }
  });
});
