import { PlanHubError } from '@planhub/shared';

/**
 * What a call on a client that was closed (by the application, or by connect() giving up) ends with. Not UNAVAILABLE:
 * that code is retryable, and code that retries as the docs advise would retry for ever against a client that can
 * never answer again. FAILED_PRECONDITION says the call cannot succeed until the caller changes something (a new
 * client). A client closed by the node's final refusal ends its calls with that refusal instead.
 */
export const clientClosedError = (reason?: string): PlanHubError =>
  new PlanHubError(
    'FAILED_PRECONDITION',
    reason === undefined ? 'the client is closed' : `the client is closed: ${reason}`,
  );

/**
 * What a call on a client from createClient() that was never opened ends with, at once: nothing dials before open(),
 * so the call used to wait out every retry (140 s) and end DEADLINE_EXCEEDED, "retryable".
 */
export const notOpenedError = (tool: string): PlanHubError =>
  new PlanHubError(
    'FAILED_PRECONDITION',
    `${tool}: the client is not open; call open() on it first (connect() opens the client it returns).`,
  );
