import type { ErrorShape } from '@planhub/shared';
import { PlanHubError } from '@planhub/shared';
import { z } from 'zod';

/** Hostile input must not come back at its own size: issue texts and their number are capped. */
const MAX_ISSUES = 20;
const MAX_ISSUE_TEXT = 300;
const MAX_MESSAGE = 4000;
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

export const issuesOf = (error: z.ZodError) =>
  error.issues.slice(0, MAX_ISSUES).map((issue) => ({
    path: clip(issue.path.map(String).join('.'), MAX_ISSUE_TEXT),
    message: clip(issue.message, MAX_ISSUE_TEXT),
  }));

/** zod's issues as one sentence a model can act on, plus `{ path, message }` details. */
export const invalidArguments = (tool: string, error: z.ZodError): PlanHubError => {
  const issues = issuesOf(error);
  const more = error.issues.length - issues.length;
  const text =
    issues.map((i) => `${i.path || '(arguments)'}: ${i.message}`).join('; ') +
    (more > 0 ? `; and ${more} more issues` : '');
  return new PlanHubError('INVALID_ARGUMENT', `Invalid arguments for ${tool}: ${text}`, { issues });
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
