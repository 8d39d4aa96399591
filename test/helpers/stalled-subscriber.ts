import { io, type Socket } from 'socket.io-client';
import { expect } from 'vitest';

/** A todo list of ~200 KB (50 items of ~4 KB), pushed to every subscriber of todos_updated. */
export const bigTodos = (round: number) =>
  Array.from({ length: 50 }, (_, i) => ({
    id: `t${i}`,
    content: `${round}:${'x'.repeat(3900)}`,
    status: 'pending' as const,
    priority: 'low' as const,
  }));

/**
 * A raw socket.io client (no SDK) of workspace `ws` that subscribes to todos_updated, then stops reading its TCP
 * socket: what the node sends it piles up on the node. `afterEvent: '$'` subscribes live only.
 */
export const stalledSubscriber = async (url: string, agent: string, options: { afterEvent?: string } = {}) => {
  const socket: Socket = io(url, {
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    auth: { workspace: 'ws', agent_id: agent, role: 'agent' },
  });
  const reasons: { message?: string }[] = [];
  socket.on('disconnect_reason', (reason: { message?: string }) => reasons.push(reason));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('connect_error', reject);
  });
  const args = {
    event_types: ['todos_updated'],
    ...(options.afterEvent !== undefined ? { after_event: options.afterEvent } : {}),
  };
  const ack: unknown = await socket.timeout(10_000).emitWithAck('call', { tool: 'subscribeToTasks', args });
  expect(ack).toMatchObject({ ok: true });
  // engine.io-client's websocket transport wraps a `ws` WebSocket; its net.Socket is what stops reading.
  const tcp = (socket.io.engine.transport as unknown as { ws: { _socket: { pause(): void; resume(): void } } }).ws
    ._socket;
  tcp.pause();
  return { socket, reasons, resume: () => tcp.resume() };
};
