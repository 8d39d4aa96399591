import type { Caller } from '@planhub/shared';
import type { Logger } from 'pino';
import type { Server } from 'socket.io';
import type { ConnectionCounter } from '../limits/connection-counter.ts';
import { HandshakeRefusal } from './authenticate.ts';

/** When a client refused for a full slot count may try again: a slot frees when one of its connections closes. */
const RETRY_AFTER_MS = 1000;

/**
 * Handshake step after authentication: an agent may hold at most `max` connections (a runaway reconnect loop or a
 * leaked client must not exhaust the node). Refused with a connect_error that says so; the slot is released on
 * disconnect. Registered last, so no later step can refuse a socket that already holds a slot.
 */
export const limitConnections = (io: Server, deps: { counter: ConnectionCounter; max: number; log: Logger }): void => {
  const log = deps.log.child({ module: 'connection-limit' });
  io.use((socket, next) => {
    const caller = (socket.data as { caller: Caller }).caller;
    const key = `{${caller.workspace}}:${caller.agent_id}`;
    deps.counter.acquire(key, socket.id, deps.max).then(
      ({ admitted, live }) => {
        if (!admitted) {
          log.warn({ agent_id: caller.agent_id, workspace: caller.workspace, live }, 'connection refused: limit');
          next(
            new HandshakeRefusal(
              'RESOURCE_EXHAUSTED',
              `Too many connections: agent ${caller.agent_id} already has ${live} open (limit ${deps.max}). ` +
                'Close unused clients or reuse one connection.',
              { retry_after_ms: RETRY_AFTER_MS },
            ),
          );
          return;
        }
        // The client may have gone while its slot was being counted; then no disconnect event would free it.
        if (socket.conn.readyState !== 'open') {
          void deps.counter.release(key, socket.id);
          next(new HandshakeRefusal('UNAVAILABLE', 'connection closed during the handshake'));
          return;
        }
        socket.once('disconnect', () => void deps.counter.release(key, socket.id));
        next();
      },
      (err: unknown) => {
        log.error({ err }, 'connection count failed');
        next(
          new HandshakeRefusal('UNAVAILABLE', 'The server could not admit the connection right now; retry shortly.', {
            retry_after_ms: RETRY_AFTER_MS,
          }),
        );
      },
    );
  });
};
