import type { ToolArgs, ToolName } from '@planhub/shared';
import { TOOLS, longPollMs, waitsForDecision } from '@planhub/shared';
import type { CallOptions } from './connect-options.ts';
import { attemptTerms, type CallTerms } from './call-retry.ts';

/**
 * A caller's `timeoutMs` is one deadline for the whole call, retries included. Without one each attempt keeps its own
 * deadline (call-retry.ts), as before. A wait the node holds for the call must end by the caller's deadline too: the
 * protocol has no way to cancel one call's wait (the node ends a connection's waits only when the connection closes,
 * which would cut every other call and the subscriptions), so a wait left behind holds one of the agent's 16 wait
 * slots on that node until it ends by itself.
 */

const definitionOf = (tool: ToolName) => TOOLS[tool] as (typeof TOOLS)[ToolName] | undefined;

/**
 * The arguments a call is sent with under a caller's deadline. A startPlan that would wait for a person's decision is
 * sent with wait=false: that wait has no bound of its own on the node, so each attempt the deadline gave up on stayed
 * behind until the plan was decided (16 of them made the agent's next startPlan RESOURCE_EXHAUSTED). wait=false is
 * what the protocol offers for it: the call answers at once with the plan's state (awaiting_approval, or the decision
 * already made), and the decision comes as plan_approved / plan_rejected.
 */
export const boundedArgs = <N extends ToolName>(tool: N, args: ToolArgs<N>, options: CallOptions): ToolArgs<N> => {
  const definition = definitionOf(tool);
  const waits = definition?.behaviour?.waitsForDecision;
  if (options.timeoutMs === undefined || !definition || !waits || !waitsForDecision(definition, args)) return args;
  return { ...args, [waits.unlessFalse]: false };
};

/**
 * How long before the caller's deadline a long-poll's own wait ends: the node's empty answer has to travel back in
 * time, or a wait that found nothing reads as DEADLINE_EXCEEDED. A quarter of what is left, at most a second.
 */
const answerMarginMs = (leftMs: number): number => Math.min(1000, leftMs / 4);

/**
 * A long-poll's wait under a caller's deadline: what is left of the wait it asked for, and never past the deadline
 * (less the margin above), so the node's wait ends before the caller stops listening for it. `timeout: 30` with a
 * 2 s deadline used to leave a 30 s wait on the node for every attempt.
 */
const longPollWithin = <N extends ToolName>(tool: N, args: ToolArgs<N>, elapsedMs: number, leftMs: number) => {
  const definition = definitionOf(tool);
  const poll = definition?.behaviour?.longPoll;
  const waitMs = definition ? longPollMs(definition, args) : 0;
  if (poll === undefined || waitMs === 0) return args;
  const ms = Math.max(0, Math.min(waitMs - elapsedMs, leftMs - answerMarginMs(leftMs)));
  return { ...args, [poll.secondsArg]: Math.floor(ms) / 1000 };
};

/** One attempt: what it sends, what its timeout says (`namedMs`), and when it stops waiting (`at`, none: never). */
export interface Attempt<N extends ToolName> {
  args: ToolArgs<N>;
  namedMs: number | undefined;
  at: number | undefined;
}

/** The attempt made `now` of a call that started at `started`. */
export const attemptAt = <N extends ToolName>(
  tool: N,
  args: ToolArgs<N>,
  terms: CallTerms,
  started: number,
  now = Date.now(),
): Attempt<N> => {
  const elapsedMs = now - started;
  const callerMs = terms.callerTimeoutMs;
  if (callerMs === undefined) {
    const attempt = attemptTerms(tool, args, terms, elapsedMs);
    const ms = attempt.timeoutMs;
    return { args: attempt.args, namedMs: ms, at: ms === undefined ? undefined : now + ms };
  }
  // Every attempt names the caller's figure: "no answer within 1000 ms", never what was left of it.
  return {
    args: longPollWithin(tool, args, elapsedMs, callerMs - elapsedMs),
    namedMs: callerMs,
    at: started + callerMs,
  };
};
