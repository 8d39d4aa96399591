import { PlanHubError } from '@planhub/shared';

/** The code and message of the PlanHubError `fn` throws; anything else (or nothing) fails the test. */
export const errorOf = (fn: () => unknown): { code: string; message: string } => {
  try {
    fn();
  } catch (err) {
    if (err instanceof PlanHubError) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected an error');
};
