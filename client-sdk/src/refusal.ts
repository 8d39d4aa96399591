import type { ConnectRefusalDetails, ErrorCode } from '@planhub/shared';
import { ConnectRefusalSchema, FINAL_REFUSAL_CODES } from '@planhub/shared';

/** Why one connection attempt failed, as the client acts on it. */
export interface AttemptFailure {
  code: ErrorCode;
  message: string;
  /** No retry with the same credentials can succeed (the node refused them). */
  final: boolean;
  /**
   * The refusal's data beyond code and message, as the node sent it (`retry_after_ms`: do not try again sooner;
   * `token_required`): the details of the error a final refusal closes the client with, so an application decides
   * by fields, not words.
   */
  details?: ConnectRefusalDetails;
}

/**
 * Reads a connect_error: a node's refusal carries `{ code, message, retry_after_ms?, token_required? }` in `data`.
 * A refusal from a node without codes (`data` missing, socket inactive) is taken as UNAUTHENTICATED, which it used
 * to mean; a failure of the transport itself (nothing listening, DNS, TLS, timeout) is UNAVAILABLE and retried.
 */
export const attemptFailure = (err: Error & { data?: unknown }, refusedByServer: boolean): AttemptFailure => {
  const data = ConnectRefusalSchema.safeParse(err.data);
  if (data.success) {
    const { code, message, ...details } = data.data;
    return {
      code,
      message,
      final: FINAL_REFUSAL_CODES.has(code),
      ...(Object.keys(details).length > 0 ? { details } : {}),
    };
  }
  if (refusedByServer) return { code: 'UNAUTHENTICATED', message: err.message, final: true };
  return { code: 'UNAVAILABLE', message: err.message, final: false };
};

/** The transport's own cause (e.g. "connect ECONNREFUSED 127.0.0.1:9"), which socket.io keeps out of the message. */
export const causeOf = (err: { description?: unknown }): string => {
  const description = err.description as { message?: unknown; error?: { message?: unknown } } | undefined;
  const cause = description?.error?.message ?? description?.message;
  return typeof cause === 'string' && cause !== '' ? ` (${cause})` : '';
};
