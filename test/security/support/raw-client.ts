import type { CallAck } from '@planhub/shared';
import { io, type Socket } from 'socket.io-client';

export interface RawClient {
  socket: Socket;
  /** One "call" frame with an acknowledgement; rejects only if no answer arrives within `guardMs` (a hang). */
  call(tool: string, args?: unknown, requestId?: string): Promise<CallAck>;
  /** Any frame: `payload` is sent as-is (even a non-object), followed by an acknowledgement callback. */
  send(...payload: unknown[]): Promise<unknown>;
  close(): void;
}

const GUARD_MS = 20_000;

/**
 * A bare socket.io client, without the SDK's retries, reconnection and argument shaping: what a hostile or buggy
 * client can do. Resolves once connected; rejects with the connect_error message.
 */
export const rawClient = (url: string, auth: object): Promise<RawClient> =>
  new Promise((resolve, reject) => {
    const socket = io(url, { transports: ['websocket'], reconnection: false, forceNew: true, auth });
    const send = (...payload: unknown[]) =>
      new Promise<unknown>((res, rej) => {
        const guard = setTimeout(() => rej(new Error(`no acknowledgement within ${GUARD_MS} ms`)), GUARD_MS);
        socket.emit('call', ...payload, (answer: unknown) => {
          clearTimeout(guard);
          res(answer);
        });
      });
    socket.once('connect', () =>
      resolve({
        socket,
        send,
        call: (tool, args = {}, requestId) =>
          send({ tool, args, ...(requestId ? { request_id: requestId } : {}) }) as Promise<CallAck>,
        close: () => void socket.disconnect(),
      }),
    );
    socket.once('connect_error', (err) => {
      socket.disconnect();
      reject(err);
    });
  });

/** Open-mode credentials. */
export const openAuth = (workspace: string, agentId: string, role: 'agent' | 'user' | 'dashboard' = 'agent') => ({
  workspace,
  agent_id: agentId,
  role,
});
