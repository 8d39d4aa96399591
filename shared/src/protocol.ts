import { z } from 'zod';
import { ErrorShapeSchema } from './errors.ts';

export const PROTOCOL_VERSION = 1;

/**
 * The HTTP header of the answer that opens an MCP session: the event id its waitForEvents continues after. A client
 * that opens a new session for the same host (the node ended the old one) passes it as `after_event`, so that the
 * events committed since the old session opened still come out, even when no wait of the old one had answered.
 */
export const MCP_EVENT_CURSOR_HEADER = 'planhub-event-cursor';

export const RoleSchema = z.enum(['agent', 'user', 'dashboard']);
export type Role = z.infer<typeof RoleSchema>;

/** Workspace and agent names end up in Redis keys and logs: keep them to a safe alphabet. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@-]*$/;
export const NAME_RULE = 'use letters, digits and . _ : @ - (start with a letter or digit)';
export const NameSchema = z.string().min(1).max(128).regex(NAME_PATTERN, NAME_RULE);

/** Handshake `auth` in open mode (no secret configured). */
export const OpenAuthSchema = z.object({
  workspace: NameSchema.default('default'),
  agent_id: NameSchema,
  role: RoleSchema.default('agent'),
});
export type OpenAuth = z.infer<typeof OpenAuthSchema>;

/** Handshake `auth` in secret mode: the claims live in the signed token. */
export const TokenAuthSchema = z.object({ token: z.string().min(1).max(8192) });

export const TokenClaimsSchema = z.object({
  workspace: NameSchema,
  agent_id: NameSchema,
  role: RoleSchema,
});
export type TokenClaims = z.infer<typeof TokenClaimsSchema>;

export const RequestIdSchema = z.string().min(1).max(128);

export const CallRequestSchema = z.object({
  tool: z.string().min(1).max(64),
  args: z.record(z.string(), z.unknown()).default({}),
  request_id: RequestIdSchema.optional(),
});
export type CallRequest = z.infer<typeof CallRequestSchema>;

export const CallAckSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), result: z.unknown() }),
  z.object({ ok: z.literal(false), error: ErrorShapeSchema }),
]);
export type CallAck = z.infer<typeof CallAckSchema>;

/** The identity a connection acts as, after the handshake. */
export interface Caller {
  workspace: string;
  agent_id: string;
  role: Role;
}
