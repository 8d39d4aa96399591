import type { Caller, TokenClaims } from '@planhub/shared';
import { TokenClaimsSchema, parseTtl } from '@planhub/shared';
import { randomUUID } from 'node:crypto';
import { SignJWT, decodeJwt, errors, jwtVerify } from 'jose';
import { refusalSentences } from '../errors/to-error-shape.ts';

/** HS256 only: accepting any other algorithm (or "none") would let a client choose how it is checked. */
const ALGORITHM = 'HS256';
/** Small clock differences between the minting machine and the node should not refuse a fresh token. */
const CLOCK_TOLERANCE_S = 5;

const keyOf = (secret: string) => new TextEncoder().encode(secret);

/** Why a token was refused; the message goes to the client as the connect_error reason. */
export class TokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenError';
  }
}

/** Signs `claims` with the shared secret; `ttl` as "15m", "1h", "7d" or seconds. */
export const mintToken = async (
  secret: string,
  claims: TokenClaims,
  ttl: string | number,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<string> => {
  const parsed = TokenClaimsSchema.parse(claims);
  return (
    new SignJWT({ workspace: parsed.workspace, agent_id: parsed.agent_id, role: parsed.role })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setIssuedAt(nowSeconds)
      .setExpirationTime(nowSeconds + parseTtl(ttl))
      // The id a revocation names (POST /tokens/revoke).
      .setJti(randomUUID())
      .sign(keyOf(secret))
  );
};

const reasonOf = (err: unknown): string => {
  if (err instanceof errors.JWTExpired) {
    const exp = typeof err.payload.exp === 'number' ? new Date(err.payload.exp * 1000).toISOString() : 'its exp';
    return `Token expired at ${exp}; mint a new one (planhub token ... --ttl 1h).`;
  }
  if (err instanceof errors.JWTClaimValidationFailed)
    return err.claim === 'exp' && err.reason === 'missing'
      ? 'Token has no expiry (exp claim); mint tokens with a TTL.'
      : `Token claim "${err.claim}" is invalid (${err.reason}).`;
  if (err instanceof errors.JWSSignatureVerificationFailed)
    return 'Token signature does not verify: it was not signed with this server’s PLANHUB_SECRET.';
  if (err instanceof errors.JOSEAlgNotAllowed)
    return `Token algorithm is not allowed; tokens are signed with ${ALGORITHM}.`;
  return 'Token is malformed: expected a compact JWT (header.payload.signature) signed with HS256.';
};

/** Checks signature, algorithm and expiry, then the claims; the identity is taken from the token alone. */
export const verifyToken = async (secret: string, token: string, now?: Date): Promise<Caller> => {
  let payload: unknown;
  try {
    ({ payload } = await jwtVerify(token, keyOf(secret), {
      algorithms: [ALGORITHM],
      requiredClaims: ['exp'],
      clockTolerance: CLOCK_TOLERANCE_S,
      ...(now ? { currentDate: now } : {}),
    }));
  } catch (err) {
    throw new TokenError(reasonOf(err));
  }
  const iat = (payload as { iat?: unknown }).iat;
  const nowS = Math.floor((now ?? new Date()).getTime() / 1000);
  if (typeof iat === 'number' && iat > nowS + CLOCK_TOLERANCE_S)
    throw new TokenError(
      `Token is issued in the future (iat ${new Date(iat * 1000).toISOString()}); check the clock of the machine ` +
        'that minted it, then mint a new one.',
    );
  const claims = refusalSentences(TokenClaimsSchema, payload);
  if (!claims.ok)
    throw new TokenError(
      `Token claims are invalid: ${claims.text}. A token names workspace, agent_id and role (agent | user | dashboard).`,
    );
  return claims.data;
};

/** The lifetime claims of a token that verifyToken already accepted (read without verifying again). */
export const tokenTerms = (token: string): { exp: number; iat?: number; jti?: string } => {
  const { exp, iat, jti } = decodeJwt(token);
  return {
    exp: exp ?? 0,
    ...(typeof iat === 'number' ? { iat } : {}),
    ...(typeof jti === 'string' && jti.length > 0 ? { jti } : {}),
  };
};
