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
});
export type ConnectRefusal = z.infer<typeof ConnectRefusalSchema>;

/** Refusal codes a client must not retry with the same credentials. */
export const FINAL_REFUSAL_CODES: ReadonlySet<string> = new Set(['UNAUTHENTICATED', 'PERMISSION_DENIED']);
