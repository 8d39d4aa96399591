import type { CallAck } from '@planhub/shared';
import { PlanHubError } from '@planhub/shared';
import type { Socket } from 'socket.io-client';
import type { CloseWatch } from './close-watch.ts';

/**
 * One "call" on one socket: its acknowledgement, or a retryable error when the connection drops first or (with a
 * timeout) the deadline passes, so the caller can retry the same request_id elsewhere. `closed` ends it with its
 * reason when the client closes: the client removes the socket's listeners first, so no 'disconnect' reaches it.
 */
export const emitCall = (
  socket: Socket,
  payload: object,
  timeoutMs: number | undefined,
  deadline: number,
  closed: CloseWatch,
): Promise<CallAck> =>
  new Promise<CallAck>((resolve, reject) => {
    if (closed.signal.aborted) return reject(closed.signal.reason as Error);
    // No time left (a caller's deadline spent waiting for a connection): sent anyway, it would only leave work, a
    // long-poll's wait say, on the node for an answer no one waits for.
    if (timeoutMs !== undefined && deadline <= Date.now())
      return reject(new PlanHubError('DEADLINE_EXCEEDED', `no answer within ${timeoutMs} ms`));
    const onDisconnect = () => {
      cleanup();
      reject(new PlanHubError('UNAVAILABLE', 'connection lost during the call'));
    };
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            cleanup();
            reject(new PlanHubError('DEADLINE_EXCEEDED', `no answer within ${timeoutMs} ms`));
          }, deadline - Date.now());
    const cleanup = () => {
      if (timer) clearTimeout(timer);
      socket.off('disconnect', onDisconnect);
      unwatch();
    };
    const unwatch = closed.watch((reason) => {
      cleanup();
      reject(reason);
    });
    socket.once('disconnect', onDisconnect);
    socket.emit('call', payload, (ack: CallAck) => {
      cleanup();
      resolve(ack);
    });
  });
