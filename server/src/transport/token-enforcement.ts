import type { Logger } from 'pino';
import type { Server, Socket } from 'socket.io';
import type { Revocations } from '../store/revocations/revocations.ts';
import { lifetimeRefusal, REVOCATION_UNCHECKED, REVOKED } from '../auth/token-admission.ts';
import { TokenHolders } from '../auth/token-holders.ts';
import { tokenTerms } from '../auth/tokens.ts';
import { handshakeRefusal } from './handshake-refusal.ts';

/**
 * Secret mode, after authentication: a token holds for the life of its connection only while it is valid. Refused at
 * the handshake when its lifetime (exp - iat) exceeds `maxLifetimeSeconds` or its jti is revoked; a live connection
 * is closed when its token expires or is revoked on any node.
 */
export const enforceTokens = (
  io: Server,
  deps: { revocations: Revocations; maxLifetimeSeconds: number; log: Logger },
): void => {
  const log = deps.log.child({ module: 'tokens' });
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
    const { exp, jti } = tokenTerms(token);
    const refusal = lifetimeRefusal(token, deps.maxLifetimeSeconds);
    if (refusal !== undefined) {
      next(handshakeRefusal('UNAUTHENTICATED', refusal));
      return;
    }
    const admit = () => {
      holders.hold(socket, { jti, exp });
      // The engine connection's close also fires when a later handshake step refuses the socket.
      socket.conn.once('close', () => holders.release(socket));
      next();
    };
    if (jti === undefined) {
      admit();
      return;
    }
    deps.revocations.isRevoked(jti).then(
      (revoked) => (revoked ? next(handshakeRefusal('UNAUTHENTICATED', REVOKED)) : admit()),
      (err: unknown) => {
        log.error({ err }, 'revoked-token lookup failed');
        next(handshakeRefusal('UNAVAILABLE', REVOCATION_UNCHECKED));
      },
    );
  });
};
