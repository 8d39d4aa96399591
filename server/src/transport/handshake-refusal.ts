import type { ErrorCode } from '@planhub/shared';

/**
 * A handshake refusal as socket.io sends it: the client's connect_error carries `err.data = { code, message }`, so it
 * can tell a policy refusal (PERMISSION_DENIED, UNAUTHENTICATED, RESOURCE_EXHAUSTED) from a network failure.
 */
export const handshakeRefusal = (
  code: ErrorCode,
  message: string,
): Error & { data: { code: ErrorCode; message: string } } =>
  Object.assign(new Error(message), { data: { code, message } });
