import type { Socket } from 'socket.io';
import { handshakeRefusal } from './handshake-refusal.ts';
import type { OriginCheck } from './origin-policy.ts';
import type { ThrottledLog } from '../throttled-log.ts';

/**
 * socket.io middleware: the origin policy, before the handshake's auth is even read (after the caps, which count
 * every CONNECT).
 */
export const originGuard =
  (check: OriginCheck, refused: ThrottledLog) =>
  (socket: Socket, next: (err?: Error) => void): void => {
    const reason = check(socket.handshake.headers);
    if (reason === undefined) {
      next();
      return;
    }
    refused(
      'warn',
      { origin: socket.handshake.headers.origin, host: socket.handshake.headers.host },
      'handshake refused: origin',
    );
    next(handshakeRefusal('PERMISSION_DENIED', reason));
  };
