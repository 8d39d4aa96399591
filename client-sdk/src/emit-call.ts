import type { CallAck } from '@planhub/shared';
import { PlanHubError } from '@planhub/shared';
import type { Socket } from 'socket.io-client';

/**
 * One "call" on one socket: its acknowledgement, or a retryable error when the connection drops first or (with a
 * timeout) the deadline passes, so the caller can retry the same request_id elsewhere.
 */
export const emitCall = (
  socket: Socket,
  payload: object,
  timeoutMs: number | undefined,
  deadline: number,
): Promise<CallAck> =>
  new Promise<CallAck>((resolve, reject) => {
    const onDisconnect = () => {
      cleanup();
      reject(new PlanHubError('UNAVAILABLE', 'connection lost during the call'));
    };
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(
            () => {
              cleanup();
              reject(new PlanHubError('DEADLINE_EXCEEDED', `no answer within ${timeoutMs} ms`));
            },
            Math.max(0, deadline - Date.now()),
          );
    const cleanup = () => {
      if (timer) clearTimeout(timer);
      socket.off('disconnect', onDisconnect);
    };
    socket.once('disconnect', onDisconnect);
    socket.emit('call', payload, (ack: CallAck) => {
      cleanup();
      resolve(ack);
    });
  });
