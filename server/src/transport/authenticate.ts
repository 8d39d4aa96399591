import type { Caller, ConnectRefusal, ConnectRefusalDetails, ErrorCode } from '@planhub/shared';
import { OpenAuthSchema, TokenAuthSchema } from '@planhub/shared';
import { verifyToken } from '../auth/tokens.ts';
import type { ServerConfig } from '../config.ts';
import { refusalSentences } from '../errors/to-error-shape.ts';

/**
 * A refused handshake. socket.io sends `message` and `data` to the client as its connect_error; `data.code` tells
 * the client whether retrying can help (docs/protocol.md, "Refused connections"). Every handshake step refuses with
 * one of these.
 */
export class HandshakeRefusal extends Error {
  readonly data: ConnectRefusal;
  /** `details` are the refusal's optional fields as they go on the wire (`retry_after_ms`, `token_required`). */
  constructor(code: ErrorCode, message: string, details: ConnectRefusalDetails = {}) {
    super(message);
    this.name = 'HandshakeRefusal';
    this.data = { code, message, ...details };
  }
}

/** What an authenticator threw, as the connect_error to send: a refusal keeps its code, anything else is UNAUTHENTICATED. */
export const toConnectError = (err: unknown): HandshakeRefusal =>
  err instanceof HandshakeRefusal
    ? err
    : new HandshakeRefusal('UNAUTHENTICATED', err instanceof Error ? err.message : 'authentication failed');

/** Turns a handshake's `auth` into the identity the connection acts as, or throws with the reason for connect_error. */
export type Authenticate = (auth: unknown) => Promise<Caller>;

export const openModeAuthenticate: Authenticate = (auth) => {
  const parsed = refusalSentences(OpenAuthSchema, auth ?? {});
  if (!parsed.ok)
    return Promise.reject(
      new HandshakeRefusal(
        'UNAUTHENTICATED',
        `Handshake auth must be { workspace?, agent_id, role? } in open mode: ${parsed.text}`,
      ),
    );
  return Promise.resolve(parsed.data);
};

/**
 * No token at all (none, null or empty), as opposed to one that is not a token (a number, too long): only then may a
 * client ask its user for one rather than report a broken one.
 */
const carriesNoToken = (auth: unknown): boolean => {
  const token = (auth as { token?: unknown } | null | undefined)?.token;
  return token === undefined || token === null || token === '';
};

/** Secret mode: the identity comes from the signed token alone; other handshake fields are ignored. */
export const secretModeAuthenticate =
  (secret: string): Authenticate =>
  async (auth) => {
    const parsed = TokenAuthSchema.safeParse(auth);
    if (!parsed.success)
      throw new HandshakeRefusal(
        'UNAUTHENTICATED',
        'This server is in secret mode: connect with auth: { token } signed with its PLANHUB_SECRET ' +
          '(mint one with: planhub token --workspace W --agent A --role agent --ttl 1h).',
        carriesNoToken(auth) ? { token_required: true } : {},
      );
    return verifyToken(secret, parsed.data.token);
  };

export const authenticatorFor = (config: ServerConfig): Authenticate =>
  config.secret === undefined ? openModeAuthenticate : secretModeAuthenticate(config.secret);
