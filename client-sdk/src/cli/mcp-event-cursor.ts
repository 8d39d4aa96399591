import type { JSONRPCMessage, JSONRPCRequest, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { isJSONRPCRequest, isJSONRPCResultResponse } from '@modelcontextprotocol/sdk/types.js';
import { compareEventIds, EventIdSchema } from '@planhub/shared';

/**
 * The calls whose answer names the session's event cursor (`last_event_id`): the one that reads it, and the one
 * that may move it back (`after_event`).
 */
const CURSOR_TOOLS = { waitForEvents: 'wait', subscribeToTasks: 'subscribe' } as const;
type CursorCall = (typeof CURSOR_TOOLS)[keyof typeof CURSOR_TOOLS];

interface ToolCall {
  kind: CursorCall;
  args: Record<string, unknown>;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isEventId = (value: unknown): value is string => EventIdSchema.safeParse(value).success;

const cursorCallOf = (request: JSONRPCRequest): ToolCall | undefined => {
  if (request.method !== 'tools/call' || !isRecord(request.params)) return undefined;
  const { name, arguments: args } = request.params;
  if (typeof name !== 'string' || !Object.hasOwn(CURSOR_TOOLS, name)) return undefined;
  return { kind: CURSOR_TOOLS[name as keyof typeof CURSOR_TOOLS], args: isRecord(args) ? args : {} };
};

/** The `last_event_id` of a successful tool result: its structuredContent, or the JSON text every result carries. */
const lastEventIdOf = (message: JSONRPCMessage): string | undefined => {
  if (!isJSONRPCResultResponse(message) || message.result.isError === true) return undefined;
  let answer: unknown = message.result.structuredContent;
  if (!isRecord(answer)) {
    const content = message.result.content;
    const text = Array.isArray(content) && isRecord(content[0]) ? content[0].text : undefined;
    try {
      answer = typeof text === 'string' ? JSON.parse(text) : undefined;
    } catch {
      return undefined;
    }
  }
  const id = isRecord(answer) ? answer.last_event_id : undefined;
  return isEventId(id) ? id : undefined;
};

const earlier = (a: string, b: string) => (compareEventIds(a, b) <= 0 ? a : b);

/**
 * Where the node's waitForEvents continues for the bridge's session, as the node's answers said, so that a session
 * the bridge opens again (the node restarted, the session idled out) continues there. A new session's cursor starts
 * at the end of the log: the events committed while no session was open (a subagent's completion that unblocked the
 * parent's step) would never come out of waitForEvents, and the host cannot tell, as it never saw the session change.
 *
 * The new session is moved by the first waitForEvents relayed after the reopen: it gets the old position as its
 * `after_event` (unless the host named one), which is exact: the node continues right after it.
 */
export class SessionEventCursor {
  /**
   * The session's cursor as the node's latest answer named it, or where the session opened until one did (unknown
   * when the node did not say).
   */
  private position: string | undefined;
  /** Set by a reopen: where the new session's waits continue, until one of them has answered. */
  private carried: string | undefined;
  /** The host's calls on their way whose answer names the cursor. */
  private readonly calls = new Map<RequestId, CursorCall>();

  /** The host's message as it is to go to the node now. */
  outgoing(message: JSONRPCMessage): JSONRPCMessage {
    if (!isJSONRPCRequest(message)) return message;
    const call = cursorCallOf(message);
    if (call === undefined) return message;
    this.calls.set(message.id, call.kind);
    if (this.carried === undefined) return message;
    const named = call.args.after_event;
    if (call.kind === 'subscribe') {
      // The old session's cursor would only move back to it, as the node's rewind does.
      if (isEventId(named)) this.carried = earlier(this.carried, named);
      return message;
    }
    if (named !== undefined) return message;
    return { ...message, params: { ...message.params, arguments: { ...call.args, after_event: this.carried } } };
  }

  /** The node's answer to a request of the host's, on the session in use, as it goes to the host. */
  answered(message: JSONRPCMessage): void {
    if (!('id' in message) || message.id === undefined) return;
    const kind = this.calls.get(message.id);
    if (kind === undefined) return;
    this.calls.delete(message.id);
    const position = lastEventIdOf(message);
    if (position === undefined) return;
    // Until a wait has moved the new session, a subscription's answer names the new session's cursor, not ours.
    if (this.carried !== undefined && kind === 'subscribe') return;
    this.carried = undefined;
    this.position = position;
  }

  /**
   * A session opened after `after` (the node's header on its initialize answer). Only the host's first session's
   * start is its position: a session the bridge opened again continues where the old one stopped, not where it opens.
   */
  opened(after: string): void {
    if (this.position === undefined && this.carried === undefined) this.position = after;
  }

  /** The bridge answered the request itself: a late answer of the node's is dropped, the host never sees it. */
  forget(id: RequestId): void {
    this.calls.delete(id);
  }

  /** A new session replaced the old one. Returns where its waits will continue, when the bridge knows it. */
  reopened(): string | undefined {
    this.carried ??= this.position;
    return this.carried;
  }
}
