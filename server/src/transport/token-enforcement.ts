import type { Logger } from 'pino';
import type { Server, Socket } from 'socket.io';
import type { Revocations } from '../store/revocations/revocations.ts';
import { REVOKED, tokenRefusal } from '../auth/token-admission.ts';
import { TokenHolders } from '../auth/token-holders.ts';
import { tokenTerms } from '../auth/tokens.ts';
import { handshakeRefusal } from './handshake-refusal.ts';

/** At most one line per this period while lookups fail. */
const LOOKUP_LOG_MS = 1000;

/**
 * While the store is down every handshake fails its lookup: one warn line per second (with how many failures it
 * stands for) instead of one error with a stack per client, which would bury the store monitor's own outage lines.
 * Each failure is still at debug, with its stack.
 */
const lookupFailureLog = (log: Logger, now: () => number = Date.now) => {
  let lastLine = -Infinity;
  let leftOut = 0;
  return (cause: unknown) => {
    log.debug({ err: cause }, 'revoked-token lookup failed');
    const at = now();
    if (at - lastLine < LOOKUP_LOG_MS) {
      leftOut += 1;
      return;
    }
    const reason = cause instanceof Error ? cause.message : String(cause);
    log.warn(
      { reason, ...(leftOut > 0 ? { left_out: leftOut } : {}) },
      'revoked-token lookup failed; handshakes answer UNAVAILABLE until the store answers' +
        (leftOut > 0 ? ` (${leftOut} more since the last line)` : ''),
    );
    lastLine = at;
    leftOut = 0;
  };
};

/**
 * Secret mode, after authentication: a token holds for the life of its connection only while it is valid. Refused at
 * the handshake when its lifetime (exp - iat) exceeds `maxLifetimeSeconds` or its jti is revoked; a live connection
 * is closed when its token expires or is revoked on any node.
 */
export const enforceTokens = (
  io: Server,
  deps: { revocations: Revocations; maxLifetimeSeconds: number; log: Logger; now?: () => number },
): void => {
  const log = deps.log.child({ module: 'tokens' });
  const lookupFailed = lookupFailureLog(log, deps.now);
  const holders = new TokenHolders<Socket>(deps.revocations, (socket, why) => {
    log.info({ socket: socket.id }, `token ${why}; disconnecting`);
    socket.disconnect(true);
  });

  io.use((socket, next) => {
    const token = (socket.handshake.auth as { token?: unknown }).token;
    if (typeof token !== 'string') {
      next();
      return;
    }
    const terms = tokenTerms(token);
    void tokenRefusal(terms, deps).then((refusal) => {
      if (refusal !== undefined) {
        if (refusal.cause !== undefined) lookupFailed(refusal.cause);
        next(handshakeRefusal(refusal.code, refusal.message));
        return;
      }
      // Closed during the lookup: its close has fired already, so a hold now would never be released.
      if (socket.conn.readyState !== 'open') {
        next(handshakeRefusal('UNAVAILABLE', 'connection closed during the handshake'));
        return;
      }
      // Refused when a revocation was announced after the lookup answered (see TokenHolders.hold).
      if (!holders.hold(socket, { jti: terms.jti, exp: terms.exp })) {
        next(handshakeRefusal('UNAUTHENTICATED', REVOKED));
        return;
      }
      // The engine connection's close also fires when a later handshake step refuses the socket.
      socket.conn.once('close', () => holders.release(socket));
      next();
    });
  });
};
