import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from '@planhub/shared';
import { PlanHubError, canonicalToolName, isToolName, parseArguments, plainErrorMap, TOOLS } from '@planhub/shared';
import { clippedShape, invalidArguments, toPlanHubError } from '../errors/to-error-shape.ts';
import type { ConnectionHooks, Services } from '../tools/context.ts';
import type { Dispatch } from '../tools/dispatch.ts';
import type { EventNotifier } from './event-notifier.ts';
import type { Heartbeat } from './progress-heartbeat.ts';
import { withHeartbeat } from './progress-heartbeat.ts';
import type { SessionCursor } from './session-cursor.ts';
import type { SubscriptionChanges } from './subscription-changes.ts';
import { chargeAnswer } from '../limits/answer-cost.ts';
import { ackResult, answerBytes, errorResult, successResult, withNext } from './tool-result.ts';
import { WAIT_FOR_EVENTS, WaitForEventsArgsSchema } from './wait-for-events-tool.ts';
import { queuedPastDeadline, waitForEvents } from './wait-for-events.ts';
import type { WaitQueue } from './wait-queue.ts';

const DECISION_NEXT =
  'The user has not decided yet. Call waitForEvents: it returns plan_approved or plan_rejected for this plan once ' +
  'the user decides (call it again if it returns empty). Do not start steps before the plan is approved.';

const SUBSCRIBED_NEXT =
  'Over MCP events are not pushed to you: call waitForEvents to receive the matching events (each one once).';

export interface SessionCallDeps {
  services: Services;
  dispatch: Dispatch;
  caller: Caller;
  dialects: ReadonlySet<string>;
  cursor: SessionCursor;
  notifier: EventNotifier;
  /** Wakes the session's running wait when one of its calls subscribes or unsubscribes. */
  subscriptionChanges: SubscriptionChanges;
  /** Runs a session's waits one after another, so two overlapping waits never hand out the same events. */
  waits: WaitQueue;
}

/** What the MCP request adds to a call: its abort signal, and progress reporting when the client asked for it. */
export interface CallExtras {
  signal: AbortSignal;
  heartbeat?: Heartbeat | undefined;
  /** What the call costs the agent's budget: 1 plus 1 per 16 KiB of the HTTP body it came in, as on a socket. */
  cost: number;
}

const refused = (err: unknown): CallToolResult => errorResult(clippedShape(toPlanHubError(err)));

const callWaitForEvents = async (deps: SessionCallDeps, args: unknown, extras: CallExtras) => {
  // The host times the call from when it sent it: so does its timeout, including any time queued behind another wait.
  const arrived = performance.now();
  try {
    await deps.services.callLimiter.consume(deps.caller, extras.cost);
    const parsed = parseArguments(WaitForEventsArgsSchema, args ?? {}, plainErrorMap);
    if (!parsed.success) throw invalidArguments(WAIT_FOR_EVENTS, parsed.error, args);
    const { data } = parsed;
    const deadline = arrived + data.timeout * 1000;
    const wait = () =>
      waitForEvents(deps.services, deps.caller, deps.cursor, data, extras.signal, deps.subscriptionChanges, deadline);
    // The heartbeat covers the time queued too, so a host that resets its timeout on progress keeps a queued wait.
    const queued = () => deps.waits.run(wait, deadline, () => queuedPastDeadline(deps.cursor, data), extras.signal);
    const result = successResult(await withHeartbeat(extras.heartbeat, data.timeout, queued));
    chargeAnswer(deps.services.callLimiter, deps.caller, answerBytes(result));
    return result;
  } catch (err) {
    return refused(err);
  }
};

/**
 * One tools/call of a session. Catalog tools take the socket path (dispatch: limits, role, zod, handler, request_id,
 * events), with hooks that make waits answer at once and subscriptions feed the session's cursor and notifications.
 */
export const callTool = async (
  deps: SessionCallDeps,
  called: string,
  args: Record<string, unknown> | undefined,
  extras: CallExtras,
): Promise<CallToolResult> => {
  if (called === WAIT_FOR_EVENTS) return callWaitForEvents(deps, args, extras);
  const name = canonicalToolName(called);
  if (!isToolName(name) || !deps.dialects.has(TOOLS[name].dialect))
    return refused(
      new PlanHubError(
        'NOT_FOUND',
        `Tool "${called.slice(0, 64)}" is not offered in this session; call one from tools/list ` +
          "(the endpoint URL's ?dialects= chooses which dialects a session gets).",
      ),
    );
  let subscribed = false;
  const connection: ConnectionHooks = {
    onSubscribed: (sub, afterEvent) => {
      subscribed = true;
      deps.notifier.subscribed(sub);
      if (afterEvent !== undefined) deps.cursor.rewind(afterEvent);
      deps.subscriptionChanges.notify();
      // Nothing is pushed now: the history after after_event is what waitForEvents returns next.
      return Promise.resolve({ replayed: 0, last_event_id: deps.cursor.position, already_live: false });
    },
    onUnsubscribed: (ids) => {
      deps.notifier.unsubscribed(ids);
      deps.subscriptionChanges.notify();
    },
    noLongWaits: { next: DECISION_NEXT },
  };
  // Before the call, as a decision may follow its commit at once; under the auto policy its commit decides it.
  if (TOOLS[name].behaviour?.requestsDecision && deps.services.config.approvalPolicy !== 'auto') deps.notifier.listen();
  // request_id stays among the arguments, MCP's place for it: dispatch takes it from there (call-request-id.ts).
  const ack = await deps.dispatch(
    { caller: deps.caller, signal: extras.signal, connection, cost: extras.cost },
    { tool: name, args: args ?? {} },
  );
  const result = ackResult(withNext(ack, subscribed ? SUBSCRIBED_NEXT : undefined), name);
  chargeAnswer(deps.services.callLimiter, deps.caller, answerBytes(result));
  return result;
};
