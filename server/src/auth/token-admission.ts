import type { Revocations } from '../store/revocations/revocations.ts';
import { tokenTerms } from './tokens.ts';

/** What a node holds a signed token to besides its signature: the lifetime it accepts, and the revoked ones. */
export interface TokenPolicy {
  revocations: Revocations;
  maxLifetimeSeconds: number;
}

export const REVOKED = 'Token has been revoked; mint a new one.';
export const REVOCATION_UNCHECKED = 'The server could not check the token right now; retry shortly.';

/**
 * Why a token whose signature verified may still not be used, as the sentence to answer; undefined when it may.
 * Strict about expiry although verification allows clock skew: a connection closed at exp must not come straight
 * back. Both doors check it, the socket handshake and every MCP request.
 */
export const lifetimeRefusal = (token: string, maxLifetimeSeconds: number, nowMs = Date.now()): string | undefined => {
  const { exp, iat } = tokenTerms(token);
  if (exp * 1000 <= nowMs)
    return `Token expired at ${new Date(exp * 1000).toISOString()}; mint a new one (planhub token ... --ttl 1h).`;
  if (iat === undefined || exp - iat > maxLifetimeSeconds)
    return (
      `Token lives longer than this server accepts (${maxLifetimeSeconds} s from iat to exp` +
      `${iat === undefined ? '; it has no iat claim' : ''}); mint one with a shorter --ttl.`
    );
  return undefined;
};
