import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from '@planhub/shared';
import { PROTOCOL_VERSION } from '@planhub/shared';
import type { Logger } from 'pino';
import { linkSignals } from '../ops/linked-signal.ts';
import type { Services } from '../tools/context.ts';
import type { Dispatch } from '../tools/dispatch.ts';
import type { AddressOutbound, AddressShare } from '../transport/address-outbound.ts';
import type { CallAdmission } from '../transport/call-admission.ts';
import { errorResult } from './tool-result.ts';
import type { OutboundObserver } from '../transport/socket-server.ts';
import { slowConsumerReason, type AddressCut } from '../transport/slow-consumer.ts';
import { costOfBody } from './body-cost.ts';
import { callTool } from './call-tool.ts';
import { EventNotifier } from './event-notifier.ts';
import { EventStreamGuard } from './event-stream-guard.ts';
import { InflightCalls } from './inflight-calls.ts';
import { SessionCursor } from './session-cursor.ts';
import { readSessionStart } from './session-start.ts';
import { EVENTS_LOGGER, sseFrameBytes } from './sse-frame-bytes.ts';
import { SubscriptionChanges } from './subscription-changes.ts';
import { mcpTools } from './tool-list.ts';
import { WaitQueue } from './wait-queue.ts';

export interface McpSessionDeps {
  services: Services;
  dispatch: Dispatch;
  log: Logger;
  /** Slow consumers cut and the largest queue, counted with the socket ones (metrics). */
  outbound?: OutboundObserver;
  /** What the node queues per client address, sockets and event streams together. */
  addressOutbound?: AddressOutbound;
  /** The per-address call budget, shared with the socket door. */
  admission?: CallAdmission;
}

/** One MCP session: one agent, its event cursor and notifications, and the SDK server and transport serving it. */
export interface McpSession {
  readonly caller: Caller;
  readonly transport: StreamableHTTPServerTransport;
  /** The session's GET event stream: the endpoint hands it the GET's response. */
  readonly stream: EventStreamGuard;
  /** The event id the session's waitForEvents starts after: the end of the log when it opened. */
  readonly opensAfter: string;
  close(): Promise<void>;
}

const instructionsFor = (caller: Caller) =>
  `You are agent "${caller.agent_id}" in PlanHub workspace "${caller.workspace}", where agents share plans and ` +
  "wait on each other's steps. Events are not pushed to you: after subscribeToTasks, call waitForEvents to wait " +
  'for them (for example step_unblocked, or plan_approved after startPlan).';

/**
 * Opens a session for `caller`. `onOpened` runs once the client's initialize request gave it an id; a session that
 * never gets one (the first request was not initialize) must be closed by the caller.
 */
export const openMcpSession = async (
  deps: McpSessionDeps,
  caller: Caller,
  dialects: ReadonlySet<string>,
  address: string,
  hooks: { onOpened: (id: string, session: McpSession) => void; onClosed: (id: string) => void },
): Promise<McpSession> => {
  const { services } = deps;
  const [head] = await services.store.readEvents(caller.workspace, { count: 1 });
  const start = await readSessionStart(services.store, caller, deps.log);
  const cursor = new SessionCursor(head?.event_id ?? '0-0');
  const abort = new AbortController();
  const inflight = new InflightCalls(abort.signal);
  const subscriptionChanges = new SubscriptionChanges();
  const waits = new WaitQueue();

  const server = new Server(
    { name: 'planhub', version: String(PROTOCOL_VERSION) },
    { capabilities: { tools: {}, logging: {} }, instructions: instructionsFor(caller) },
  );
  // No maxRequestBodySize: the endpoint reads every POST's body itself (within payloadBytes) and hands it over
  // parsed, and the SDK reads a body only when it is given none.
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    onsessioninitialized: (id) => hooks.onOpened(id, session),
  });
  const maxBytes = services.config.limits.outboundBytes;
  const reportCut = (queued: number, address?: AddressCut) => {
    const reason = slowConsumerReason({
      closed: "This MCP session's GET event stream",
      unread: 'its notifications',
      queuedBytes: queued,
      limitBytes: maxBytes,
      address,
      recover: 'Open the stream again; waitForEvents still returns every event.',
    });
    deps.log.warn({ agent_id: caller.agent_id, session: transport.sessionId, queued_bytes: queued }, reason.message);
    deps.outbound?.cut(reason);
  };
  const stream = new EventStreamGuard({ maxBytes, onCut: (queued) => reportCut(queued) });
  // A cut stream may be opened again by its session, so a cut joins the address's total anew.
  const joinAddress = (): AddressShare | undefined =>
    deps.addressOutbound?.join(address, {
      queued: () => stream.queued(),
      cutForAddress: (bytes, limit) => {
        reportCut(
          stream.drop(() => transport.closeStandaloneSSEStream()),
          { bytes, limit },
        );
        share = joinAddress();
      },
    });
  let share = joinAddress();
  // Messages without a request to answer go to the GET stream: each is measured against its limit before it is queued.
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const standalone = options?.relatedRequestId === undefined && !('result' in message || 'error' in message);
    if (standalone) {
      const size = () => sseFrameBytes(message);
      if (!stream.admit(size, () => transport.closeStandaloneSSEStream())) return Promise.resolve();
      deps.outbound?.peak(stream.peak);
      share?.grew();
      if (deps.addressOutbound) deps.outbound?.addressPeak(deps.addressOutbound.peak);
    }
    return send(message, options);
  };
  const notifier = new EventNotifier(caller, services.hub, start.subscriptions, (event) => {
    server
      .sendLoggingMessage({ level: 'info', logger: EVENTS_LOGGER, data: event }, transport.sessionId)
      .catch((err: unknown) => deps.log.debug({ err }, 'event notification not sent'));
  });
  if (start.awaitingDecision) notifier.listen();
  // A dashboard may only read (dispatch refuses the rest): offering it mutating tools would only invite refusals.
  const tools = mcpTools(dialects).filter((t) => caller.role !== 'dashboard' || t.annotations?.readOnlyHint === true);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const progressToken = request.params._meta?.progressToken;
    const heartbeat =
      progressToken === undefined
        ? undefined
        : (progress: number, total: number) =>
            void extra
              .sendNotification({
                method: 'notifications/progress',
                params: { progressToken, progress, total, message: 'Waiting for events' },
              })
              .catch((err: unknown) => deps.log.debug({ err }, 'progress not sent'));
    const cost = costOfBody(extra.authInfo);
    // Charged to the client address as a socket call is: rotating agent ids or doors does not multiply its budget.
    const call = async () => {
      const refused = await deps.admission?.charge(cost, caller, address);
      if (refused) return errorResult(refused, request.params.name);
      // Ends with the session or the request (its host cancelled it). Unlinked when the call ends: AbortSignal.any
      // left an entry on the session's signal per call for the session's life (linked-signal.ts), and the gate
      // keeps nothing for a call once it ends (ops/call-signals.ts).
      const link = linkSignals([abort.signal, extra.signal]);
      try {
        return await callTool(
          { services, dispatch: deps.dispatch, caller, dialects, cursor, notifier, subscriptionChanges, waits },
          request.params.name,
          request.params.arguments,
          { signal: link.signal, heartbeat, cost },
        );
      } finally {
        link.unlink();
      }
    };
    return inflight.run(call());
  });

  let closed = false;
  const session: McpSession = {
    caller,
    transport,
    stream,
    opensAfter: cursor.position,
    // Closing the server closes the transport, whose onclose lands here again: the flag is set before that.
    async close() {
      if (closed) return;
      closed = true;
      abort.abort();
      notifier.close();
      share?.leave();
      if (transport.sessionId !== undefined) hooks.onClosed(transport.sessionId);
      await inflight.settled();
      await server.close();
      stream.close();
    },
  };
  // A DELETE from the client closes the transport; the session goes with it.
  transport.onclose = () => void session.close();
  await server.connect(transport);
  return session;
};
