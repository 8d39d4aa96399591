import type { Revocations } from '../store/revocations/revocations.ts';
import type { tokenTerms } from './tokens.ts';

/** What a node holds a signed token to besides its signature: the lifetime it accepts, and the revoked ones. */
export interface TokenPolicy {
  revocations: Revocations;
  maxLifetimeSeconds: number;
}

export const REVOKED = 'Token has been revoked; mint a new one.';
export const REVOCATION_UNCHECKED = 'The server could not check the token right now; retry shortly.';

/** What a token's own claims say, decoded once (tokenTerms) and handed to the checks below. */
export type TokenTerms = ReturnType<typeof tokenTerms>;

/**
 * Why a token whose signature verified may still not be used, as the sentence to answer; undefined when it may.
 * Strict about expiry although verification allows clock skew: a connection closed at exp must not come straight
 * back.
 */
export const lifetimeRefusal = (
  { exp, iat }: TokenTerms,
  maxLifetimeSeconds: number,
  nowMs = Date.now(),
): string | undefined => {
  if (exp * 1000 <= nowMs)
    return `Token expired at ${new Date(exp * 1000).toISOString()}; mint a new one (planhub token ... --ttl 1h).`;
  if (iat === undefined || exp - iat > maxLifetimeSeconds)
    return (
      `Token lives longer than this server accepts (${maxLifetimeSeconds} s from iat to exp` +
      `${iat === undefined ? '; it has no iat claim' : ''}); mint one with a shorter --ttl.`
    );
  return undefined;
};

export interface TokenRefusal {
  code: 'UNAUTHENTICATED' | 'UNAVAILABLE';
  message: string;
  /** Why a revocation could not be looked up (UNAVAILABLE), for the caller's log. */
  cause?: unknown;
}

/**
 * Every door's check of a token whose signature verified: its lifetime (unless `lifetime` is false: scrapers hold
 * long-lived tokens), then whether it was revoked. A lookup that fails is UNAVAILABLE, never a pass and never
 * a refusal of the token: the client retries. The socket handshake, MCP requests and /metrics all answer by it.
 */
export const tokenRefusal = async (
  terms: TokenTerms,
  policy: { revocations: Pick<Revocations, 'isRevoked'>; maxLifetimeSeconds?: number },
): Promise<TokenRefusal | undefined> => {
  const lifetime =
    policy.maxLifetimeSeconds === undefined ? undefined : lifetimeRefusal(terms, policy.maxLifetimeSeconds);
  if (lifetime !== undefined) return { code: 'UNAUTHENTICATED', message: lifetime };
  if (terms.jti === undefined) return undefined;
  try {
    return (await policy.revocations.isRevoked(terms.jti)) ? { code: 'UNAUTHENTICATED', message: REVOKED } : undefined;
  } catch (cause) {
    return { code: 'UNAVAILABLE', message: REVOCATION_UNCHECKED, cause };
  }
};
