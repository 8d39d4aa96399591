import type { Logger } from 'pino';
import type { Revocations } from '../store/revocations/revocations.ts';

/** setTimeout's ceiling (about 24.8 days); a later expiry is re-armed when this fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The token a session's latest request came with (secret mode). */
export interface SessionToken {
  jti?: string | undefined;
  /** Expiry, seconds since the epoch. */
  exp?: number | undefined;
}

/**
 * Secret mode: a session holds only while the token of its latest request does, as a socket connection does. Every
 * request is checked anyway; this closes the session (and with it the event notifications it streams) when that
 * token is revoked on any node, or expires, unless a later request brought a fresher token.
 */
export class SessionTokens {
  private readonly byJti = new Map<string, Set<string>>();
  private readonly held = new Map<string, { jti?: string | undefined; timer?: NodeJS.Timeout | undefined }>();
  private readonly offRevoked: () => void;

  constructor(
    revocations: Revocations,
    private readonly close: (sessionId: string) => void,
    private readonly log: Logger,
  ) {
    this.offRevoked = revocations.onRevoked((jti) => {
      for (const sessionId of [...(this.byJti.get(jti) ?? [])]) {
        log.info({ jti, session: sessionId }, 'token revoked; closing its MCP session');
        this.forget(sessionId);
        this.close(sessionId);
      }
    });
  }

  use(sessionId: string, token: SessionToken): void {
    this.forget(sessionId);
    const entry: { jti?: string | undefined; timer?: NodeJS.Timeout | undefined } = { jti: token.jti };
    if (token.jti !== undefined) this.byJti.set(token.jti, (this.byJti.get(token.jti) ?? new Set()).add(sessionId));
    if (token.exp !== undefined) {
      const exp = token.exp;
      const arm = () => {
        entry.timer = setTimeout(
          () => {
            if (Date.now() < exp * 1000) return arm();
            this.log.info({ session: sessionId, exp }, 'token expired; closing its MCP session');
            this.forget(sessionId);
            this.close(sessionId);
          },
          Math.max(0, Math.min(exp * 1000 - Date.now(), MAX_TIMER_MS)),
        );
        entry.timer.unref();
      };
      arm();
    }
    this.held.set(sessionId, entry);
  }

  forget(sessionId: string): void {
    const entry = this.held.get(sessionId);
    if (!entry) return;
    this.held.delete(sessionId);
    clearTimeout(entry.timer);
    if (entry.jti !== undefined) {
      const sessions = this.byJti.get(entry.jti);
      sessions?.delete(sessionId);
      if (sessions?.size === 0) this.byJti.delete(entry.jti);
    }
  }

  stop(): void {
    this.offRevoked();
    for (const sessionId of [...this.held.keys()]) this.forget(sessionId);
  }
}
