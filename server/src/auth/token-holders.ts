import type { Revocations } from '../store/revocations/revocations.ts';

/** setTimeout's ceiling (about 24.8 days); a later expiry is re-armed when this fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The terms of a token a holder came with: its id (for revocation) and expiry (seconds since the epoch). */
export interface HeldToken {
  jti?: string | undefined;
  exp?: number | undefined;
  /** A digest of the token's bytes, so `holds` means this very token (not only its jti); never the token itself. */
  digest?: string | undefined;
}

interface Entry {
  jti?: string | undefined;
  digest?: string | undefined;
  timer?: NodeJS.Timeout | undefined;
}

/**
 * What holds a token (a socket connection, an MCP session) for as long as the token is valid: `onEnd` is told once
 * when the token it holds expires or is revoked on any node. Both doors keep their holders here, so the two follow
 * one rule. Holding again replaces the token held (an MCP request with a fresher one).
 */
export class TokenHolders<H> {
  private readonly byJti = new Map<string, Set<H>>();
  private readonly held = new Map<H, Entry>();
  private readonly offRevoked: () => void;

  constructor(
    private readonly revocations: Revocations,
    private readonly onEnd: (holder: H, why: 'expired' | 'revoked') => void,
  ) {
    this.offRevoked = revocations.onRevoked((jti) => {
      for (const holder of [...(this.byJti.get(jti) ?? [])]) this.end(holder, 'revoked');
    });
  }

  /**
   * Whether `holder` still holds this very token: then it was looked up when held, and no revocation of it has been
   * announced since (that would have ended the holder), so a door may skip looking it up again.
   */
  holds(holder: H, token: HeldToken): boolean {
    const entry = this.held.get(holder);
    return (
      entry !== undefined && entry.jti === token.jti && entry.digest !== undefined && entry.digest === token.digest
    );
  }

  /**
   * Makes `holder` hold `token`; false, and the holder keeps what it held, when the token's revocation has been
   * announced already. Asked here rather than by the door: a revocation announced between a lookup's "not revoked"
   * and this hold reaches no holder, and a held token is not looked up again. Holding the token held is a no-op.
   */
  hold(holder: H, token: HeldToken): boolean {
    if (this.holds(holder, token)) return true;
    if (token.jti !== undefined && this.revocations.announced(token.jti)) return false;
    this.release(holder);
    const entry: Entry = { jti: token.jti, digest: token.digest };
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
    return true;
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
