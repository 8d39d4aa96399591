import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { callCost } from '../transport/call-admission.ts';

const BODY_BYTES = 'planhub/bodyBytes';

/**
 * What the endpoint sets as `req.auth` for the SDK, with the bytes of the body it read: `auth` is the SDK's only
 * per-request channel from the HTTP request to a request handler (`extra.authInfo`). Identity is checked by the
 * endpoint, never through this.
 */
export const bodyAuth = (bytes: number): AuthInfo => ({
  token: '',
  clientId: '',
  scopes: [],
  extra: { [BODY_BYTES]: bytes },
});

/**
 * A tools/call costs what a socket call of the same size does, by the HTTP body it came in (each call of a batch
 * pays for the whole body): without it a call of a megabyte cost one unit. The bytes are those the endpoint read,
 * not the `content-length` header, which a chunked body does not have.
 */
export const costOfBody = (auth: AuthInfo | undefined): number => {
  const read = auth?.extra?.[BODY_BYTES];
  return callCost(typeof read === 'number' ? read : 0);
};
