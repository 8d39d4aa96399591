import type { Logger } from 'pino';
import type { Server, Socket } from 'socket.io';
import type { Revocations } from '../store/revocations/revocations.ts';
import { lifetimeRefusal, REVOCATION_UNCHECKED, REVOKED } from '../auth/token-admission.ts';
import { tokenTerms } from '../auth/tokens.ts';
import { handshakeRefusal } from './handshake-refusal.ts';

/** setTimeout's ceiling (about 24.8 days); a longer-lived token is re-armed when this fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

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
  const byJti = new Map<string, Set<Socket>>();
  deps.revocations.onRevoked((jti) => {
    for (const socket of byJti.get(jti) ?? []) {
      log.info({ jti, socket: socket.id }, 'token revoked; disconnecting');
      socket.disconnect(true);
    }
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
      let timer: NodeJS.Timeout | undefined;
      const arm = () => {
        const left = exp * 1000 - Date.now();
        timer = setTimeout(
          () => {
            if (Date.now() < exp * 1000) return arm();
            log.info({ socket: socket.id, exp }, 'token expired; disconnecting');
            socket.disconnect(true);
          },
          Math.max(0, Math.min(left, MAX_TIMER_MS)),
        );
      };
      arm();
      if (jti !== undefined) byJti.set(jti, (byJti.get(jti) ?? new Set()).add(socket));
      // The engine connection's close also fires when a later handshake step refuses the socket.
      socket.conn.once('close', () => {
        clearTimeout(timer);
        const set = jti === undefined ? undefined : byJti.get(jti);
        set?.delete(socket);
        if (jti !== undefined && set?.size === 0) byJti.delete(jti);
      });
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
