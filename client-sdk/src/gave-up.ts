import { PlanHubError } from '@planhub/shared';

/**
 * The last error of a call the client retried until it gave up, saying how many attempts it made over how long:
 * "no answer within 300 ms" alone, seconds after the call, reads as if the deadline had been ignored. A single attempt
 * is left as it is: its own message is the whole story.
 */
export const gaveUpAfter = (error: PlanHubError, attempts: number, elapsedMs: number): PlanHubError =>
  attempts <= 1
    ? error
    : new PlanHubError(
        error.code,
        `${error.message}, ${attempts} attempts over ${(elapsedMs / 1000).toFixed(1)} s`,
        error.details,
        error.requestId,
      );
