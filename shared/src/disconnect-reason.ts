import { z } from 'zod';
import { ErrorCodeSchema } from './errors.ts';

/**
 * What a node pushes as `disconnect_reason` right before it closes a connection itself, so the client can tell the
 * application why (the client reconnects either way). Today one reason: `slow_consumer`, a connection that did not
 * read its events until more than `limit_bytes` were queued for it. docs/protocol.md describes it for other clients.
 */
export const DisconnectReasonSchema = z.object({
  code: ErrorCodeSchema,
  /** Machine-readable: `slow_consumer`. A client reads reasons it does not know by `code` and `message`. */
  reason: z.string(),
  message: z.string(),
  /** slow_consumer: bytes queued for the connection when it was cut, and the limit it passed. */
  queued_bytes: z.number().int().nonnegative().optional(),
  limit_bytes: z.number().int().nonnegative().optional(),
});
export type DisconnectReason = z.infer<typeof DisconnectReasonSchema>;
