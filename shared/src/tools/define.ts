import type { z } from 'zod';
import type { Dialect } from '../model.ts';
import { waitSecondsOf } from './common.ts';

/**
 * What is special about a tool beyond its schemas. Server and clients read these from the definition, so no package
 * keeps its own list of tool names for timeouts or request-log handling.
 */
export interface ToolBehaviour {
  /**
   * The call can wait for a person's decision (startPlan until the user approves or rejects): clients give it no
   * deadline, unless its boolean argument named here is false (then it answers at once).
   */
  waitsForDecision?: { unlessFalse: string };
  /**
   * A successful call may leave one of the caller's plans awaiting a person's decision (startPlan, plan_exit): an MCP
   * session listens for the caller's decisions from such a call on, to notify its host of them.
   */
  requestsDecision?: true;
  /**
   * The call's only effect is its store commit (no subscription, no wait, nothing kept on the connection), so it may
   * read while its call count is still on its way; its commit and its answer wait for the count.
   */
  readsBeforeAdmission?: true;
  /** The call long-polls: the server may hold it for up to the number of seconds in the argument named here. */
  longPoll?: {
    secondsArg: string;
    /** The server waits at most this long, whatever the argument says. */
    maxSeconds: number;
  };
  /**
   * A repeat is harmless by the tool's own semantics, so the server never answers it from the request log (which
   * would freeze its first, interim answer).
   */
  selfIdempotent?: boolean;
  /**
   * A read-only tool (allowed for dashboards: it changes none of the workspace's plans or tasks) that still changes
   * something of the caller's own (unsubscribe drops its subscriptions): it takes a request_id, and a repeat with it
   * answers what the first call did, not what is left after it.
   */
  remembersAnswer?: true;
}

/** One tool of the flat namespace: its dialect, what the model reads, and the schemas of its input and result. */
export interface ToolDefinition<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  name: string;
  dialect: Dialect | 'planhub';
  description: string;
  input: I;
  output: O;
  /** Read-only tools are allowed for dashboards and never written to the request log; all others mutate. */
  readOnly: boolean;
  behaviour?: ToolBehaviour;
}

export const defineTool = <const N extends string, I extends z.ZodType, O extends z.ZodType>(
  def: ToolDefinition<I, O> & { name: N },
): ToolDefinition<I, O> & { name: N } => def;

/** Whether a call of this tool carries a request_id: every mutating tool, and a read-only one that remembers. */
export const takesRequestId = (def: Pick<ToolDefinition, 'readOnly' | 'behaviour'>): boolean =>
  !def.readOnly || def.behaviour?.remembersAnswer === true;

const argOf = (args: unknown, name: string): unknown =>
  typeof args === 'object' && args !== null ? (args as Record<string, unknown>)[name] : undefined;

/** Whether this call, with these arguments, may wait for a person (and so must not get a client deadline). */
export const waitsForDecision = (def: Pick<ToolDefinition, 'behaviour'>, args: unknown): boolean => {
  const waits = def.behaviour?.waitsForDecision;
  return waits !== undefined && argOf(args, waits.unlessFalse) !== false;
};

/** How long the server may hold this call by design (a long-poll's timeout), in milliseconds; 0 for other tools. */
export const longPollMs = (def: Pick<ToolDefinition, 'behaviour'>, args: unknown): number => {
  const poll = def.behaviour?.longPoll;
  if (poll === undefined) return 0;
  const seconds = waitSecondsOf(argOf(args, poll.secondsArg));
  return seconds > 0 ? Math.min(seconds, poll.maxSeconds) * 1000 : 0;
};
