import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { createServer, type PlanHubServer } from '@planhub/server';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { rounds } from '../helpers/stress.ts';

/** The smallest limit allowed (two of the largest events): reached quickly. */
const LIMIT = 1024 * 1024;
const STALLED = 3;
/** Each write carries a todo list of ~200 KB, pushed to every subscriber: far past the kernel's socket buffers. */
const WRITES = rounds(80);
const ITEMS = 50;

const metric = async (url: string, name: string) => {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 'NaN');
};

/** A raw socket.io client (no SDK) that subscribes, then stops reading its TCP socket. */
const stalledClient = async (url: string, agent: string) => {
  const socket: Socket = io(url, {
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    auth: { workspace: 'ws', agent_id: agent, role: 'agent' },
  });
  const reasons: unknown[] = [];
  socket.on('disconnect_reason', (reason: unknown) => reasons.push(reason));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('connect_error', reject);
  });
  const ack = (await socket.timeout(10_000).emitWithAck('call', {
    tool: 'subscribeToTasks',
    args: { event_types: ['todos_updated'] },
  })) as {
    ok: boolean;
  };
  expect(JSON.stringify(ack)).toMatch(/"ok":true/);
  // engine.io-client's websocket transport wraps a `ws` WebSocket; its net.Socket is what stops reading.
  const tcp = (socket.io.engine.transport as unknown as { ws: { _socket: { pause(): void; resume(): void } } }).ws
    ._socket;
  tcp.pause();
  return { socket, reasons, resume: () => tcp.resume() };
};

describe('stalled consumers', () => {
  let server: PlanHubServer;
  let url: string;
  let writer: PlanHubClient;

  beforeAll(async () => {
    server = createServer({
      port: 0,
      logLevel: 'silent',
      // Long enough that every stalled client is still there to be told why when the test lets it read again.
      slowConsumerGraceMs: 120_000,
      limits: { outboundBytes: LIMIT, callsPerSecond: 100_000, callsPerAddressPerSecond: 1_000_000 },
    });
    ({ url } = await server.listen());
    writer = await connect({ url, workspace: 'ws', agentId: 'writer' });
  });

  afterAll(async () => {
    writer?.close();
    await server?.close();
  });

  it('cut a connection that stops reading once its queue passes the limit; the heap never holds more', async () => {
    const stalled = await Promise.all(Array.from({ length: STALLED }, (_, i) => stalledClient(url, `stalled-${i}`)));
    const reader = await connect({ url, workspace: 'ws', agentId: 'reader' });
    let delivered = 0;
    reader.on('event', (e) => void (e.event_type === 'todos_updated' && (delivered += 1)));
    await reader.subscribeToTasks({ event_types: ['todos_updated'] });

    let largest = 0;
    for (let round = 0; round < WRITES; round++) {
      const todos = Array.from({ length: ITEMS }, (_, i) => ({
        id: `t${i}`,
        content: `${round}:${'x'.repeat(3900)}`,
        status: 'pending' as const,
        priority: 'low' as const,
      }));
      largest = Math.max(largest, JSON.stringify(todos).length);
      await writer.call('todo_write', { todos });
    }

    // Every stalled connection was cut, by the limit (the heartbeat would take a minute).
    await eventually(async () => expect(await metric(url, 'planhub_slow_consumers_cut_total')).toBe(STALLED));
    const peak = await metric(url, 'planhub_outbound_peak_bytes');
    expect(peak).toBeGreaterThan(0);
    // The check runs after each push: at most one event over the limit (plus its envelope) was ever queued.
    expect(peak).toBeLessThanOrEqual(LIMIT + largest + 4096);

    // A stalled client that reads again learns why it was cut.
    for (const client of stalled) client.resume();
    await eventually(() =>
      expect(stalled.map((c) => c.reasons[0])).toEqual(
        Array(STALLED).fill(expect.objectContaining({ code: 'RESOURCE_EXHAUSTED', reason: 'slow_consumer' })),
      ),
    );
    for (const client of stalled) client.socket.close();

    // The reader that kept reading was never cut and got every event.
    await eventually(() => expect(delivered).toBe(WRITES));
    expect(reader.state).toBe('connected');
    reader.close();
  });
});
