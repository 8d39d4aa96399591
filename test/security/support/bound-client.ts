import { io, type Socket } from 'socket.io-client';

export type Attempt = { ok: true; socket: Socket } | { ok: false; error: Error & { data?: unknown } };

/**
 * One socket.io connection (websocket only, no retries) from `localAddress`: Linux accepts any of 127.0.0.0/8 as a
 * source, so each 127.x address is a different client to the node. Settles on connect or connect_error.
 */
export const connectFrom = (
  url: string,
  localAddress: string,
  auth: object,
  headers: Record<string, string> = {},
): Promise<Attempt> =>
  new Promise((resolve) => {
    const socket = io(url, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      auth,
      localAddress,
      extraHeaders: headers,
    } as Parameters<typeof io>[1]);
    socket.once('connect', () => resolve({ ok: true, socket }));
    socket.once('connect_error', (error) => {
      socket.close();
      resolve({ ok: false, error });
    });
  });
