import type { Revocations } from '../store/revocations/revocations.ts';

/** setTimeout's ceiling (about 24.8 days); a later expiry is re-armed when this fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The terms of a token a holder came with: its id (for revocation) and expiry (seconds since the epoch). */
export interface HeldToken {
  jti?: string | undefined;
  exp?: number | undefined;
}

/**
 * What holds a token (a socket connection, an MCP session) for as long as the token is valid: `onEnd` is told once
 * when the token it holds expires or is revoked on any node. Both doors keep their holders here, so the two follow
 * one rule. Holding again replaces the token held (an MCP request with a fresher one).
 */
export class TokenHolders<H> {
  private readonly byJti = new Map<string, Set<H>>();
  private readonly held = new Map<H, { jti?: string | undefined; timer?: NodeJS.Timeout | undefined }>();
  private readonly offRevoked: () => void;

  constructor(
    revocations: Revocations,
    private readonly onEnd: (holder: H, why: 'expired' | 'revoked') => void,
  ) {
    this.offRevoked = revocations.onRevoked((jti) => {
      for (const holder of [...(this.byJti.get(jti) ?? [])]) this.end(holder, 'revoked');
    });
  }

  hold(holder: H, token: HeldToken): void {
    this.release(holder);
    const entry: { jti?: string | undefined; timer?: NodeJS.Timeout | undefined } = { jti: token.jti };
    if (token.jti !== undefined) this.byJti.set(token.jti, (this.byJti.get(token.jti) ?? new Set()).add(holder));
    const exp = token.exp;
    if (exp !== undefined) {
      const arm = () => {
        entry.timer = setTimeout(
          () => (Date.now() < exp * 1000 ? arm() : this.end(holder, 'expired')),
          Math.max(0, Math.min(exp * 1000 - Date.now(), MAX_TIMER_MS)),
        );
        entry.timer.unref();
      };
      arm();
    }
    this.held.set(holder, entry);
  }

  release(holder: H): void {
    const entry = this.held.get(holder);
    if (!entry) return;
    this.held.delete(holder);
    clearTimeout(entry.timer);
    if (entry.jti === undefined) return;
    const holders = this.byJti.get(entry.jti);
    holders?.delete(holder);
    if (holders?.size === 0) this.byJti.delete(entry.jti);
  }

  stop(): void {
    this.offRevoked();
    for (const holder of [...this.held.keys()]) this.release(holder);
  }

  private end(holder: H, why: 'expired' | 'revoked'): void {
    this.release(holder);
    this.onEnd(holder, why);
  }
}
