import type { ErrorShape } from '@planhub/shared';
import { PlanHubError, parseArguments, plainErrorMap, plainIssues } from '@planhub/shared';
import { z } from 'zod';

/** Hostile input must not come back at its own size: issue texts and their number are capped. */
const MAX_ISSUES = 20;
const MAX_ISSUE_TEXT = 300;
const MAX_MESSAGE = 4000;
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** zod's issues as `{ path, message }` details, each message a plain sentence naming the field. */
export const issuesOf = (error: z.ZodError, args?: unknown, tool?: string) =>
  plainIssues(error.issues.slice(0, MAX_ISSUES), args, tool).map((issue) => ({
    path: clip(issue.path, MAX_ISSUE_TEXT),
    message: clip(issue.message, MAX_ISSUE_TEXT),
  }));

/**
 * A value that is not a tool's arguments (a handshake, a token's claims, an endpoint's query), checked against
 * `schema`: its refusal in plain sentences that each name their field ("agent_id is required"), said once each,
 * never zod's own wording. Undefined when the value is accepted.
 */
export const refusalSentences = <S extends z.ZodType>(
  schema: S,
  value: unknown,
): { ok: true; data: z.output<S> } | { ok: false; text: string } => {
  const parsed = parseArguments(schema, value, plainErrorMap);
  if (parsed.success) return { ok: true, data: parsed.data };
  return { ok: false, text: [...new Set(issuesOf(parsed.error, value).map((i) => i.message))].join('; ') };
};

/**
 * A refused call's message starts with the plain sentences (upstream's wording where it has one, e.g. "title is
 * required"), then says where the accepted arguments are described. `args` (what was sent) lets the sentences quote
 * the bad value.
 */
export const invalidArguments = (
  tool: string,
  error: z.ZodError,
  args?: unknown,
  // Not "listTools": an MCP session offered some dialects only has no such tool, and its host lists the schemas.
  guidance = `Check the arguments of ${tool} against its schema (the tool list shows it).`,
): PlanHubError => {
  const issues = issuesOf(error, args, tool);
  const more = error.issues.length - issues.length;
  // One value can fail two checks in the same words ("" for a list: not a list, and too short): said once.
  const sentences = [...new Set(issues.map((i) => i.message))];
  // A sentence written whole (upstream's "… Valid statuses: a, b.") keeps its own full stop: no second one.
  const text = (sentences.join('; ') + (more > 0 ? `; and ${more} more issues` : '')).replace(/\.$/, '');
  return new PlanHubError('INVALID_ARGUMENT', `${text}. ${guidance}`, { issues });
};

/** The wire shape with the message capped (a handler's message may quote a long input or list every bad item). */
export const clippedShape = (error: PlanHubError): ErrorShape => {
  const shape = error.toShape();
  return shape.message.length > MAX_MESSAGE ? { ...shape, message: clip(shape.message, MAX_MESSAGE) } : shape;
};

/** The one place anything thrown becomes a wire error; unknown failures never leak their text or stack. */
export const toPlanHubError = (err: unknown): PlanHubError => {
  if (err instanceof PlanHubError) return err;
  if (err instanceof z.ZodError) return invalidArguments('this call', err);
  return new PlanHubError('INTERNAL', 'Internal error in PlanHub; the failure was logged. Retrying may help.');
};

export const toErrorShape = (err: unknown): ErrorShape => toPlanHubError(err).toShape();
