import type { ErrorShape } from '@planhub/shared';
import { PlanHubError } from '@planhub/shared';
import { z } from 'zod';

export const issuesOf = (error: z.ZodError) =>
  error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));

/** zod's issues as one sentence a model can act on, plus `{ path, message }` details. */
export const invalidArguments = (tool: string, error: z.ZodError): PlanHubError => {
  const issues = issuesOf(error);
  const text = issues.map((i) => `${i.path || '(arguments)'}: ${i.message}`).join('; ');
  return new PlanHubError('INVALID_ARGUMENT', `Invalid arguments for ${tool}: ${text}`, { issues });
};

/** The one place anything thrown becomes a wire error; unknown failures never leak their text or stack. */
export const toPlanHubError = (err: unknown): PlanHubError => {
  if (err instanceof PlanHubError) return err;
  if (err instanceof z.ZodError) return invalidArguments('this call', err);
  return new PlanHubError('INTERNAL', 'Internal error in PlanHub; the failure was logged. Retrying may help.');
};

export const toErrorShape = (err: unknown): ErrorShape => toPlanHubError(err).toShape();
