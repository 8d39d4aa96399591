import type { CallAck } from '@planhub/shared';
import { PlanHubError } from '@planhub/shared';
import type { Socket } from 'socket.io-client';
import type { CloseWatch } from './close-watch.ts';

/**
 * One "call" on one socket: its acknowledgement, or a retryable error when the connection drops first or (with a
 * timeout) the deadline passes, so the caller can retry the same request_id elsewhere. `closed` ends it with its
 * reason when the client closes: the client removes the socket's listeners first, so no 'disconnect' reaches it.
 *
 * `freed` is called once the node no longer counts the call as in flight: its answer arrived, the connection
 * dropped or the client closed, or it was never sent. Not at the caller's deadline: the node goes on working on a
 * call the caller stopped waiting for, and a place freed then let the next queued call meet the node's bound.
 */
export const emitCall = (
  socket: Socket,
  payload: object,
  timeoutMs: number | undefined,
  deadline: number,
  closed: CloseWatch,
  freed: () => void = () => {},
): Promise<CallAck> =>
  new Promise<CallAck>((resolve, reject) => {
    if (closed.signal.aborted) {
      freed();
      return reject(closed.signal.reason as Error);
    }
    // No time left (a caller's deadline spent waiting for a connection): sent anyway, it would only leave work, a
    // long-poll's wait say, on the node for an answer no one waits for.
    if (timeoutMs !== undefined && deadline <= Date.now()) {
      freed();
      return reject(new PlanHubError('DEADLINE_EXCEEDED', `no answer within ${timeoutMs} ms`));
    }
    let settled = false;
    const settle = (end: () => void) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      end();
    };
    let gone = false;
    const free = () => {
      if (gone) return;
      gone = true;
      socket.off('disconnect', onDisconnect);
      unwatch();
      freed();
    };
    const onDisconnect = () => {
      free();
      settle(() => reject(new PlanHubError('UNAVAILABLE', 'connection lost during the call')));
    };
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(
            () => settle(() => reject(new PlanHubError('DEADLINE_EXCEEDED', `no answer within ${timeoutMs} ms`))),
            deadline - Date.now(),
          );
    const unwatch = closed.watch((reason) => {
      free();
      settle(() => reject(reason));
    });
    socket.once('disconnect', onDisconnect);
    try {
      socket.emit('call', payload, (ack: CallAck) => {
        free();
        settle(() => resolve(ack));
      });
    } catch (err) {
      // Arguments the encoder could not send (the client refuses those it can tell first: unsendable.ts). Nothing
      // went out, so the call's place is freed now: thrown past here, it was held for as long as the connection.
      free();
      const reason = err instanceof Error ? err.message : String(err);
      settle(() => reject(new PlanHubError('INVALID_ARGUMENT', `The call could not be sent as JSON: ${reason}.`)));
    }
  });
