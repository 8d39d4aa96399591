import type { ToolArgs, ToolName, ToolResult } from '@planhub/shared';
import { PlanHubError, TOOLS, longPollMs } from '@planhub/shared';

/** `after_event` for "what comes after the log's end when the node reads the call" (getTaskEvents, subscribeToTasks). */
const LIVE_ONLY = '$';

type Read = ToolArgs<'getTaskEvents'>;

/** One attempt-retrying call; `live` is where '$' stands, for subscribeToTasks (subscriptions.ts `resuming`). */
export type Send = <N extends ToolName>(tool: N, args: ToolArgs<N>, live?: string) => Promise<ToolResult<N>>;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * The read that fixes where '$' stands, for a call whose '$' a node would otherwise read again at every attempt: a
 * getTaskEvents that waits, and a subscribeToTasks. Sent again after its node died mid-wait or its answer was lost,
 * '$' meant the end of the log when the retry arrived, so an event committed in between was never delivered (the
 * long-poll answered a cursor already past it). A read that does not wait is left alone: its own answer is that read.
 */
export const liveProbe = (tool: ToolName, args: unknown, resumes = false): Read | undefined => {
  if (!isRecord(args) || args.after_event !== LIVE_ONLY) return undefined;
  if (tool === 'getTaskEvents')
    // The call itself without its wait (with before_event too the node refuses it, as it would the call).
    return args.before_event === undefined && longPollMs(TOOLS.getTaskEvents, args) > 0
      ? { ...args, timeout: 0 }
      : undefined;
  // A client with a resume cursor starts every new connection's stream after it, this subscription's included.
  if (tool !== 'subscribeToTasks' || resumes) return undefined;
  // The first event the subscription would take, if one came after the log's end before the read looked.
  const probe: Record<string, unknown> = { after_event: LIVE_ONLY, timeout: 0, limit: 1 };
  for (const key of ['agent_id', 'event_types', 'plan_id', 'step_id'])
    if (args[key] !== undefined) probe[key] = args[key];
  return probe;
};

/** The position right before event `id` (ids are `<ms>-<seq>`): a stream that starts after it begins with `id`. */
export const justBefore = (id: string): string => {
  const [ms, seq] = id.split('-').map(BigInt) as [bigint, bigint];
  return seq > 0n ? `${ms}-${seq - 1n}` : `${ms - 1n}-${Number.MAX_SAFE_INTEGER}`;
};

/**
 * `tool(args)` with any '$' fixed first, so that every attempt means what the first one meant. A long-poll is sent
 * with the read's cursor and what is left of its wait, unless the read found events already: a node answers a
 * long-poll at once then, and the read is that answer. A subscription starts right before the first matching event
 * the read saw, or at its cursor; `resumes` (the client has a resume cursor) needs no read for it. Either read is as
 * cheap as a read that does not wait: the log's newest entry and what follows it. The read is sent again like any
 * call when its own answer is lost (a connection already dead when the call was made): '$' then stands where the node
 * that answers reads it, as nothing the client holds says where the lost answer put it.
 */
export const callLive = async <N extends ToolName>(
  tool: N,
  args: ToolArgs<N>,
  send: Send,
  resumes = false,
): Promise<ToolResult<N>> => {
  const probe = liveProbe(tool, args, resumes);
  if (probe === undefined) return send(tool, args);
  if (tool === 'getTaskEvents') {
    const read = await send('getTaskEvents', probe);
    if (read.events.length > 0 || typeof read.cursor !== 'string') return read as ToolResult<N>;
    return send(tool, { ...args, after_event: read.cursor });
  }
  let read: ToolResult<'getTaskEvents'>;
  try {
    read = await send('getTaskEvents', probe);
  } catch (err) {
    // Arguments the read refused: the subscription is sent as it came, for the node to refuse in its own words.
    if (err instanceof PlanHubError && err.code === 'INVALID_ARGUMENT') return send(tool, args);
    throw err;
  }
  const first = read.events[0]?.event_id;
  return send(tool, args, first !== undefined ? justBefore(first) : (read.cursor ?? undefined));
};
