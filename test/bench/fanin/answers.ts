import { backoffDelay } from '@planhub/client-sdk';
import type { CallAck, ToolArgs, ToolName, ToolResult } from '@planhub/shared';
import { RETRYABLE_CODES, type ErrorCode } from '@planhub/shared';
import type { Socket } from 'socket.io-client';

/** A call's answer as the bench sees it: the result, or the refusal's code ("NO_ANSWER" when none came in time). */
export type Answer<N extends ToolName> =
  { ok: true; result: ToolResult<N> } | { ok: false; code: ErrorCode | 'NO_ANSWER'; message: string };

const answerOnce = async <N extends ToolName>(
  socket: Socket,
  tool: N,
  args: ToolArgs<N>,
  requestId: string,
  timeoutMs: number,
): Promise<Answer<N>> => {
  try {
    const ack = (await socket.timeout(timeoutMs).emitWithAck('call', { tool, args, request_id: requestId })) as CallAck;
    return ack.ok
      ? { ok: true, result: ack.result as ToolResult<N> }
      : { ok: false, code: ack.error.code, message: ack.error.message };
  } catch (err) {
    return { ok: false, code: 'NO_ANSWER', message: err instanceof Error ? err.message : String(err) };
  }
};

export interface RetryPolicy {
  requestId: string;
  timeoutMs: number;
  /** Every non-ok answer, retried or not, is counted here by code. */
  refusals?: Record<string, number>;
  /** Whether another attempt may still be made (false once the run's deadline has passed). */
  mayRetry: () => boolean;
  /** Called with the send time of the first attempt. */
  onFirstSend?: (at: number) => void;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * A mutating call made the way the SDK makes it: one request_id for every attempt (so a retry never applies the
 * change twice), retryable refusals and lost answers retried after a full-jitter backoff. Unlike the SDK it keeps
 * retrying until `mayRetry` says stop, so that a busy server slows the fan-in down instead of breaking it.
 */
export const answerRetrying = async <N extends ToolName>(
  socket: Socket,
  tool: N,
  args: ToolArgs<N>,
  policy: RetryPolicy,
): Promise<Answer<N>> => {
  for (let attempt = 0; ; attempt++) {
    if (attempt === 0) policy.onFirstSend?.(performance.now());
    const answer = await answerOnce(socket, tool, args, policy.requestId, policy.timeoutMs);
    if (answer.ok) return answer;
    if (policy.refusals) policy.refusals[answer.code] = (policy.refusals[answer.code] ?? 0) + 1;
    const retryable = answer.code === 'NO_ANSWER' || RETRYABLE_CODES.has(answer.code);
    if (!retryable || !policy.mayRetry()) return answer;
    await sleep(backoffDelay(attempt, { baseMs: 100, maxMs: 2000 }));
  }
};

/** A setup call that must succeed: retried like any other, then thrown with the server's words. */
export const mustAnswer = async <N extends ToolName>(
  socket: Socket,
  tool: N,
  args: ToolArgs<N>,
  requestId: string,
): Promise<ToolResult<N>> => {
  let attempts = 0;
  const answer = await answerRetrying(socket, tool, args, {
    requestId,
    timeoutMs: 60_000,
    mayRetry: () => ++attempts < 20,
  });
  if (!answer.ok) throw new Error(`${tool} during fan-in setup: ${answer.code} ${answer.message}`);
  return answer.result;
};
