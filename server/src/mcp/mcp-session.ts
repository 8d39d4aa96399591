import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type RequestInfo } from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from '@planhub/shared';
import { PROTOCOL_VERSION } from '@planhub/shared';
import type { Logger } from 'pino';
import type { Services } from '../tools/context.ts';
import { callCost } from '../transport/call-admission.ts';
import type { Dispatch } from '../tools/dispatch.ts';
import { readSubscriptions } from '../tools/subscriptions-doc.ts';
import { callTool } from './call-tool.ts';
import { EventNotifier } from './event-notifier.ts';
import { InflightCalls } from './inflight-calls.ts';
import { SessionCursor } from './session-cursor.ts';
import { SubscriptionChanges } from './subscription-changes.ts';
import { mcpTools } from './tool-list.ts';

export interface McpSessionDeps {
  services: Services;
  dispatch: Dispatch;
  log: Logger;
}

/** One MCP session: one agent, its event cursor and notifications, and the SDK server and transport serving it. */
export interface McpSession {
  readonly caller: Caller;
  readonly transport: StreamableHTTPServerTransport;
  close(): Promise<void>;
}

/**
 * A tools/call costs what a socket call of the same size does, by the HTTP body it came in (each call of a batch
 * pays for the whole body): without it a call of a megabyte cost one unit. A body without a length costs 1.
 */
const costOfBody = (info: RequestInfo | undefined): number => {
  const length = Number(info?.headers['content-length'] ?? 0);
  return callCost(Number.isFinite(length) && length > 0 ? length : 0);
};

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
  hooks: { onOpened: (id: string, session: McpSession) => void; onClosed: (id: string) => void },
): Promise<McpSession> => {
  const { services } = deps;
  const [head] = await services.store.readEvents(caller.workspace, { count: 1 });
  const stored = await readSubscriptions(services.store, caller.workspace, caller.agent_id);
  const cursor = new SessionCursor(head?.event_id ?? '0-0');
  const abort = new AbortController();
  const inflight = new InflightCalls(abort.signal);
  const subscriptionChanges = new SubscriptionChanges();
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(run: () => Promise<T>): Promise<T> => {
    const next = queue.then(run);
    queue = next.catch(() => undefined);
    return next;
  };

  const server = new Server(
    { name: 'planhub', version: String(PROTOCOL_VERSION) },
    { capabilities: { tools: {}, logging: {} }, instructions: instructionsFor(caller) },
  );
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    onsessioninitialized: (id) => hooks.onOpened(id, session),
    maxRequestBodySize: services.config.limits.payloadBytes,
  });
  const notifier = new EventNotifier(caller, services.hub, stored, (event) => {
    server
      .sendLoggingMessage({ level: 'info', logger: 'planhub/events', data: event }, transport.sessionId)
      .catch((err: unknown) => deps.log.debug({ err }, 'event notification not sent'));
  });
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
    return inflight.run(
      callTool(
        { services, dispatch: deps.dispatch, caller, dialects, cursor, notifier, subscriptionChanges, serially },
        request.params.name,
        request.params.arguments,
        { signal: AbortSignal.any([abort.signal, extra.signal]), heartbeat, cost: costOfBody(extra.requestInfo) },
      ),
    );
  });

  let closed = false;
  const session: McpSession = {
    caller,
    transport,
    // Closing the server closes the transport, whose onclose lands here again: the flag is set before that.
    async close() {
      if (closed) return;
      closed = true;
      abort.abort();
      notifier.close();
      if (transport.sessionId !== undefined) hooks.onClosed(transport.sessionId);
      await inflight.settled();
      await server.close();
    },
  };
  // A DELETE from the client closes the transport; the session goes with it.
  transport.onclose = () => void session.close();
  await server.connect(transport);
  return session;
};
