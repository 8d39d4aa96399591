import { PlanHubError } from '@planhub/client-sdk';
import { expect } from 'vitest';

/**
 * Asserts that a call is refused with `code` (any code when undefined) and a message matching `message` (a RegExp,
 * or a string the message must contain). Returns the error for further checks.
 */
export const expectRefusal = async (
  call: Promise<unknown>,
  code: string | undefined,
  message?: RegExp | string,
): Promise<PlanHubError> => {
  const err: unknown = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PlanHubError);
  const error = err as PlanHubError;
  if (code !== undefined) expect(error.code).toBe(code);
  if (message !== undefined) expect(error.message).toMatch(message);
  return error;
};

/**
 * A call's outcome as `{ code, message }` (code "none" when it succeeded), so a test can compare a refusal's exact
 * wording with toEqual.
 */
export const refusal = (call: Promise<unknown>): Promise<{ code: string; message: string }> =>
  call.then(
    () => ({ code: 'none', message: 'the call succeeded' }),
    (err: { code: string; message: string }) => ({ code: err.code, message: err.message }),
  );
