import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConnectionState } from '@planhub/client-sdk';
import { PlanHubError, connect, createClient } from '@planhub/client-sdk';
import { mintToken } from '@planhub/server';
import { Server } from 'socket.io';
import { io } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import { refusingPort } from '../helpers/free-port.ts';
import { startHarness, type Harness } from '../helpers/servers.ts';

type Refusal = { code: string; message: string; retry_after_ms?: number } | undefined;

/** A socket.io server whose handshake step answers as the test scripts it; it counts the attempts and their times. */
const refusingNode = async (refuse: (attempt: number) => Refusal) => {
  const http = createHttpServer();
  const io = new Server(http);
  const attempts: number[] = [];
  io.use((_socket, next) => {
    attempts.push(Date.now());
    const refusal = refuse(attempts.length);
    next(refusal ? Object.assign(new Error(refusal.message), { data: refusal }) : undefined);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    attempts,
    close: () => io.close(),
  };
};

const rejection = (promise: Promise<unknown>): Promise<PlanHubError> =>
  promise.then(
    () => {
      throw new Error('connected, but a refusal was expected');
    },
    (err: unknown) => {
      if (!(err instanceof PlanHubError)) throw err;
      return err;
    },
  );

describe('connect() settles: it connects, or says why not', () => {
  const cleanups: (() => unknown)[] = [];
  let h: Harness | undefined;
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
    await h?.close();
    h = undefined;
  });

  it('rejects with UNAVAILABLE naming every URL tried when nothing listens, and stops trying', async () => {
    const dead = [`http://127.0.0.1:${await refusingPort()}`, `http://127.0.0.1:${await refusingPort()}`];
    const states: ConnectionState[] = [];
    const error = await rejection(
      connect({ url: dead, agentId: 'a', connectTimeoutMs: 1500, onState: (s) => states.push(s) }),
    );
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toContain('Could not connect to PlanHub within 1500 ms');
    for (const url of dead) expect(error.message).toContain(url);
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect(states.at(-1)).toBe('closed');
  });

  it('reports the state from the first attempt: connecting comes before connect() resolves', async () => {
    h = await startHarness('memory');
    const states: ConnectionState[] = [];
    const client = createClient({ url: h.url, agentId: 'a', workspace: 'ws' });
    client.on('state', (s) => states.push(s));
    await client.open();
    cleanups.push(() => client.close());
    expect(states).toEqual(['connecting', 'connected']);
    const viaOption: ConnectionState[] = [];
    const other = await connect({ url: h.url, agentId: 'b', workspace: 'ws', onState: (s) => viaOption.push(s) });
    cleanups.push(() => other.close());
    expect(viaOption).toEqual(['connecting', 'connected']);
  });

  it("rejects at once with the node's UNAUTHENTICATED refusal and never retries it", async () => {
    h = await startHarness('memory', { secret: 's'.repeat(32) });
    const states: ConnectionState[] = [];
    const forged = await mintToken('x'.repeat(32), { workspace: 'ws', agent_id: 'a', role: 'agent' }, '1h');
    const error = await rejection(
      connect({ url: h.url, agentId: 'a', token: forged, connectTimeoutMs: 60_000, onState: (s) => states.push(s) }),
    );
    expect(error.code).toBe('UNAUTHENTICATED');
    expect(error.message).toMatch(/signature does not verify/);
    expect(states).toEqual(['connecting', 'closed']);
  });

  it('does not retry PERMISSION_DENIED: one attempt, the code and message of the node', async () => {
    const node = await refusingNode(() => ({ code: 'PERMISSION_DENIED', message: 'This origin may not connect.' }));
    cleanups.push(node.close);
    const error = await rejection(connect({ url: node.url, agentId: 'a', connectTimeoutMs: 60_000 }));
    expect(error).toMatchObject({ code: 'PERMISSION_DENIED', message: 'This origin may not connect.' });
    expect(node.attempts).toHaveLength(1);
  });

  it('retries RESOURCE_EXHAUSTED no sooner than the retry_after_ms the node asked for', async () => {
    const node = await refusingNode((attempt) =>
      attempt === 1 ? { code: 'RESOURCE_EXHAUSTED', message: 'Too many connections.', retry_after_ms: 400 } : undefined,
    );
    cleanups.push(node.close);
    const client = await connect({
      url: node.url,
      agentId: 'a',
      connectTimeoutMs: 60_000,
      backoff: { baseMs: 1, maxMs: 1 },
    });
    cleanups.push(() => client.close());
    expect(node.attempts).toHaveLength(2);
    const [first = 0, second = 0] = node.attempts;
    expect(second - first).toBeGreaterThanOrEqual(400);
  });

  it("rejects with RESOURCE_EXHAUSTED's reason when the node keeps refusing until the deadline", async () => {
    const node = await refusingNode(() => ({
      code: 'RESOURCE_EXHAUSTED',
      message: 'Too many connections: agent a already has 2 open (limit 2).',
      retry_after_ms: 100,
    }));
    cleanups.push(node.close);
    const error = await rejection(connect({ url: node.url, agentId: 'a', connectTimeoutMs: 1000 }));
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toContain(`${node.url} (RESOURCE_EXHAUSTED: Too many connections`);
  });

  it("gives the node's connection-limit refusal its code and retry_after_ms on connect_error", async () => {
    h = await startHarness('memory', { limits: { connectionsPerAgent: 1 } });
    const first = await h.client('busy');
    expect(first.state).toBe('connected');
    const socket = io(h.url, {
      transports: ['websocket'],
      reconnection: false,
      auth: { workspace: 'ws', agent_id: 'busy' },
    });
    cleanups.push(() => socket.close());
    const refused = await new Promise<Error & { data?: unknown }>((resolve) => socket.once('connect_error', resolve));
    expect(refused.data).toEqual({
      code: 'RESOURCE_EXHAUSTED',
      message: expect.stringContaining('Too many connections: agent busy already has 1 open') as string,
      retry_after_ms: 1000,
    });
    const error = await rejection(connect({ url: h.url, agentId: 'busy', workspace: 'ws', connectTimeoutMs: 1500 }));
    expect(error.message).toContain('RESOURCE_EXHAUSTED: Too many connections: agent busy already has 1 open');
  });

  it('gives a refused handshake UNAUTHENTICATED on connect_error, with the reason', async () => {
    h = await startHarness('memory');
    const socket = io(h.url, { transports: ['websocket'], reconnection: false, auth: {} });
    cleanups.push(() => socket.close());
    const refused = await new Promise<Error & { data?: unknown }>((resolve) => socket.once('connect_error', resolve));
    expect(refused.data).toMatchObject({
      code: 'UNAUTHENTICATED',
      message: 'Handshake auth must be { workspace?, agent_id, role? } in open mode: agent_id is required',
    });
    expect(refused.message).toBe((refused.data as { message: string }).message);
  });

  it("words a refused handshake's fields in plain sentences, each field named once", async () => {
    h = await startHarness('memory');
    const { url } = h;
    const refusal = async (auth: object) => {
      const socket = io(url, { transports: ['websocket'], reconnection: false, auth });
      cleanups.push(() => socket.close());
      return (await new Promise<Error>((resolve) => socket.once('connect_error', resolve))).message;
    };
    const open = 'Handshake auth must be { workspace?, agent_id, role? } in open mode: ';
    expect(await refusal({ agent_id: 5 })).toBe(`${open}agent_id must be a string (got number)`);
    expect(await refusal({ agent_id: 'a', workspace: 'bad ws!' })).toBe(
      `${open}workspace: use letters, digits and . _ : @ - (start with a letter or digit)`,
    );
    expect(await refusal({ agent_id: 'a', role: 'god' })).toBe(
      `${open}Invalid role: god. Must be one of: agent, user, dashboard`,
    );
  });
});
