import { z } from 'zod';
import { ErrorCodeSchema } from './errors.ts';

/**
 * What a node attaches as `data` to a refused handshake (socket.io's connect_error): the code says whether to retry.
 * UNAUTHENTICATED and PERMISSION_DENIED are final; RESOURCE_EXHAUSTED and UNAVAILABLE may be retried, not before
 * `retry_after_ms` when given. docs/protocol.md describes the convention for clients in other languages.
 */
export const ConnectRefusalSchema = z.object({
  code: ErrorCodeSchema,
  message: z.string(),
  retry_after_ms: z.number().int().nonnegative().optional(),
  /**
   * Set (always `true`) only when a node in secret mode was given no token at all, never for a token it refused
   * (bad, expired, revoked). A client that can ask its user for a token (a CLI option, a dashboard link) decides by
   * this rather than by the message, whose words are for people and may change.
   */
  token_required: z.literal(true).optional(),
});
export type ConnectRefusal = z.infer<typeof ConnectRefusalSchema>;

/** A refusal's data beyond its code and message: what a client's error carries as `details`. */
export type ConnectRefusalDetails = Omit<ConnectRefusal, 'code' | 'message'>;

/** Refusal codes a client must not retry with the same credentials. */
export const FINAL_REFUSAL_CODES: ReadonlySet<string> = new Set(['UNAUTHENTICATED', 'PERMISSION_DENIED']);

/**
 * Whether a refused handshake's data (or the details of the error a client made of it) says the node wants a token
 * and was given none. Read by hand, not with the schema: the dashboard bundle has no zod to run it.
 */
export const tokenRequiredOf = (data: unknown): boolean =>
  (data as { token_required?: unknown } | null | undefined)?.token_required === true;
