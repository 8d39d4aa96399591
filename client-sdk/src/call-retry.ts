import type { ToolArgs, ToolName } from '@planhub/shared';
import { PlanHubError, TOOLS, longPollMs, takesRequestId, waitsForDecision } from '@planhub/shared';
import { backoffDelay, type BackoffOptions } from './backoff.ts';
import type { CallOptions, ConnectOptions } from './connect-options.ts';

/** How one tool call is sent: the request_id it carries, its deadline, and how often it may be sent again. */
export interface CallTerms {
  /** Mutating calls (and read-only ones that remember their answer) carry one, so a retry applies the change once. */
  requestId: string | undefined;
  /** None for a call that waits for a person. */
  timeoutMs: number | undefined;
  retries: number;
  /** The caller's own timeoutMs: one deadline for the whole call, retries included (call-deadline.ts). */
  callerTimeoutMs: number | undefined;
}

/** A request_id the caller put among the arguments, MCP's way: the call's own, so its retries carry it. */
const requestIdInArgs = (args: unknown): string | undefined => {
  const id = (args as { request_id?: unknown } | null)?.request_id;
  return typeof id === 'string' && id !== '' ? id : undefined;
};

/**
 * Retries of a retryable failure by default. With the default backoff (full jitter, 100 ms doubling to 2 s), 8
 * retries wait about 4.5 s on average and 9.1 s at most: a Redis restarted under the nodes (a few seconds of
 * UNAVAILABLE) is ridden out. With 5 (1.55 s on average), 2 of 6 agents of an operator's test got UNAVAILABLE
 * through a 4 s restart.
 */
export const DEFAULT_RETRIES = 8;

export const callTerms = <N extends ToolName>(
  tool: N,
  args: ToolArgs<N>,
  options: CallOptions,
  client: Pick<ConnectOptions, 'timeoutMs' | 'retries'>,
): CallTerms => {
  const definition = TOOLS[tool] as (typeof TOOLS)[ToolName] | undefined;
  return {
    requestId:
      definition && !takesRequestId(definition)
        ? undefined
        : (options.requestId ?? requestIdInArgs(args) ?? crypto.randomUUID()),
    // A call that waits for a person gets no deadline; a long-poll's own wait comes on top of the usual one.
    timeoutMs:
      options.timeoutMs ??
      (definition && waitsForDecision(definition, args)
        ? undefined
        : (client.timeoutMs ?? 15_000) + (definition ? longPollMs(definition, args) : 0)),
    retries: options.retries ?? client.retries ?? DEFAULT_RETRIES,
    callerTimeoutMs: options.timeoutMs,
  };
};

/**
 * One attempt's arguments and deadline. A long-poll sent again (its node died mid-wait, say) waits only what is left
 * of the caller's wait, and its deadline shrinks with it: re-sent whole, getTaskEvents({ timeout: 12 }) with a node
 * killed 10 s in answered after 22 s, and up to six times the wait over all retries.
 */
export const attemptTerms = <N extends ToolName>(
  tool: N,
  args: ToolArgs<N>,
  terms: Pick<CallTerms, 'timeoutMs'>,
  elapsedMs: number,
): { args: ToolArgs<N>; timeoutMs: number | undefined } => {
  const definition = TOOLS[tool] as (typeof TOOLS)[ToolName] | undefined;
  const poll = definition?.behaviour?.longPoll;
  const waitMs = definition ? longPollMs(definition, args) : 0;
  if (poll === undefined || waitMs === 0 || elapsedMs <= 0) return { args, timeoutMs: terms.timeoutMs };
  const spent = Math.min(waitMs, elapsedMs);
  return {
    args: { ...args, [poll.secondsArg]: Math.round(waitMs - spent) / 1000 },
    timeoutMs: terms.timeoutMs === undefined ? undefined : terms.timeoutMs - spent,
  };
};

/**
 * The error a call ends with. A retryable one names the call's request_id (it may have applied: the caller can retry
 * with `{ requestId }` and apply the change at most once); a refusal applied nothing and keeps its own. After several
 * attempts it says how many over how long: "no answer within 300 ms" alone, seconds after the call, reads as if the
 * deadline had been ignored.
 */
const endedWith = (error: PlanHubError, requestId: string | undefined, attempts: number, elapsedMs: number) => {
  const message =
    attempts <= 1 ? error.message : `${error.message}, ${attempts} attempts over ${(elapsedMs / 1000).toFixed(1)} s`;
  const id = error.retryable && error.requestId === undefined ? requestId : error.requestId;
  return message === error.message && id === error.requestId
    ? error
    : new PlanHubError(error.code, message, error.details, id);
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What a call ends with once the caller's deadline has passed: DEADLINE_EXCEEDED naming the caller's timeoutMs, with
 * the last attempt's own failure when that was something else (the node's store unreachable, say).
 */
export const pastDeadline = (error: PlanHubError, callerMs: number): PlanHubError => {
  const named = `no answer within ${callerMs} ms`;
  if (error.code === 'DEADLINE_EXCEEDED' && error.message === named) return error;
  const last = error.code === 'DEADLINE_EXCEEDED' ? error.message : `${error.code}: ${error.message}`;
  return new PlanHubError('DEADLINE_EXCEEDED', `${named} (last attempt: ${last})`, error.details, error.requestId);
};

/**
 * `attempt` until it succeeds, fails with an error that is not retryable, the client closes (`closed`), the retries
 * are spent, or the caller's deadline passes: then the last error, saying how many attempts it made over how long.
 * A backoff never sleeps past the caller's deadline, and no attempt starts after it: retried past it, a 1 s
 * startPlan ended after 9 attempts over 12 s.
 */
export const withRetries = async <T>(
  attempt: () => Promise<T>,
  terms: CallTerms,
  backoff: BackoffOptions,
  closed: () => boolean,
  // The call's own start, which its attempts' deadlines count from too.
  started = Date.now(),
): Promise<T> => {
  const callerMs = terms.callerTimeoutMs;
  const leftMs = () => (callerMs === undefined ? Infinity : callerMs - (Date.now() - started));
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      const error = err instanceof PlanHubError ? err : new PlanHubError('INTERNAL', String(err));
      if (!error.retryable || closed()) throw endedWith(error, terms.requestId, 1, 0);
      if (n < terms.retries && leftMs() > 0) {
        await sleep(Math.min(backoffDelay(n, backoff), leftMs()));
        if (leftMs() > 0) continue;
      }
      const last = callerMs !== undefined && leftMs() <= 0 ? pastDeadline(error, callerMs) : error;
      throw endedWith(last, terms.requestId, n + 1, Date.now() - started);
    }
  }
};
