import { parseArgs } from 'node:util';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type {
  JSONRPCMessage,
  JSONRPCNotification,
  JSONRPCRequest,
  RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
} from '@modelcontextprotocol/sdk/types.js';
import { urlOf } from './connection.ts';
import { UsageError } from './exit-codes.ts';
import { dialectsOf } from './mcp-dialects.ts';
import { SessionEventCursor } from './mcp-event-cursor.ts';
import { MCP_DEFAULTS } from './mcp-help.ts';
import { fetchNotingSessionStart } from './mcp-session-start.ts';
import { PendingRequests } from './mcp-pending-requests.ts';
import { fetchWatchingStreams, type BrokenStreamListener } from './mcp-stream-watch.ts';

const parse = (argv: readonly string[], env: NodeJS.ProcessEnv) =>
  parseArgs({
    args: [...argv],
    strict: true,
    options: {
      url: { type: 'string', default: env.PLANHUB_URL ?? MCP_DEFAULTS.url },
      workspace: { type: 'string', short: 'w', default: env.PLANHUB_WORKSPACE ?? MCP_DEFAULTS.workspace },
      agent: { type: 'string', short: 'a', ...(env.PLANHUB_AGENT ? { default: env.PLANHUB_AGENT } : {}) },
      token: { type: 'string', ...(env.PLANHUB_TOKEN ? { default: env.PLANHUB_TOKEN } : {}) },
      dialects: { type: 'string', ...(env.PLANHUB_DIALECTS ? { default: env.PLANHUB_DIALECTS } : {}) },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }).values;

/** The bridge talks to /mcp over fetch, which has no WebSocket schemes. */
const HTTP_SCHEMES = ['http:', 'https:'];

/** The node's /mcp URL for this agent; a --url that already ends in /mcp is kept as it is. */
export const mcpEndpoint = (options: ReturnType<typeof parse>): URL => {
  const endpoint = new URL(urlOf(options.url, HTTP_SCHEMES, { path: true }));
  if (!endpoint.pathname.endsWith('/mcp')) endpoint.pathname = `${endpoint.pathname.replace(/\/$/, '')}/mcp`;
  if (options.token === undefined) {
    endpoint.searchParams.set('workspace', options.workspace);
    endpoint.searchParams.set('agent_id', options.agent ?? '');
  }
  if (options.dialects !== undefined) endpoint.searchParams.set('dialects', dialectsOf(options.dialects));
  return endpoint;
};

const warn = (text: string) => process.stderr.write(`planhub mcp: ${text}\n`);

type Upstream = StreamableHTTPClientTransport;

const reasonOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** How long a new session's initialize may take: every message of the host waits for it. */
const REOPEN_DEADLINE_MS = 15_000;

const lostConnection = (reason: string) =>
  `The connection to the PlanHub node was lost before it answered (${reason}); call again.`;

/**
 * Forwards JSON-RPC messages both ways without interpreting them, so the node's MCP implementation is the only one.
 * What a client transport's owner normally does is done here: adopt the negotiated protocol version (the HTTP
 * transport sends it as a header); answer a request the node could not be reached for, so the host never waits
 * forever; and when the node no longer knows the session (404: idle expiry, node restart), open a new one with the
 * host's own initialize and send the message again, since a host that spawned a process does not re-initialize it.
 * A request whose answer cannot come any more (the stream carrying it broke: the node died) or does not come in time
 * is answered with an error too, so the host can call again.
 */
/** What the bridge hears of a transport's fetches: which requests' stream broke, and where a new session starts. */
interface UpstreamListeners {
  onBroken: BrokenStreamListener;
  onOpened: (after: string) => void;
}

const bridge = (local: StdioServerTransport, open: (listeners: UpstreamListeners) => Upstream): Promise<number> =>
  new Promise((resolve) => {
    let ended = false;
    const events = new SessionEventCursor();
    const pending = new PendingRequests((id, message) => {
      events.forget(id);
      if (ended) return;
      local.send({ jsonrpc: '2.0', id, error: { code: -32000, message } }).catch(() => undefined);
    });
    const internal = new Map<RequestId, (reply: JSONRPCMessage) => void>();
    // The transport has warned already ("SSE stream disconnected"); the answers it would have carried are settled here.
    const onBroken: BrokenStreamListener = (ids, reason) => {
      for (const id of ids) {
        const waiter = internal.get(id);
        if (waiter) waiter({ jsonrpc: '2.0', id, error: { code: -32000, message: lostConnection(reason) } });
        else pending.fail(id, lostConnection(reason));
      }
    };
    const listeners: UpstreamListeners = { onBroken, onOpened: (after) => events.opened(after) };
    let upstream = open(listeners);
    let initialize: JSONRPCRequest | undefined;
    let initialized: JSONRPCNotification | undefined;
    let reopening: Promise<void> | undefined;
    let reopened = 0;
    const adopt = (transport: Upstream, reply: JSONRPCMessage) => {
      const version = isJSONRPCResultResponse(reply) ? reply.result.protocolVersion : undefined;
      if (typeof version === 'string') transport.setProtocolVersion(version);
    };
    const wire = (transport: Upstream) => {
      transport.onmessage = (message: JSONRPCMessage) => {
        if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
          const waiter = message.id === undefined ? undefined : internal.get(message.id);
          if (waiter && message.id !== undefined) {
            internal.delete(message.id);
            waiter(message);
            return;
          }
          // Answered by the bridge already (the stream broke, the deadline passed): the host has its answer.
          if (message.id !== undefined && !pending.settle(message.id)) return;
          if (message.id === initialize?.id) adopt(transport, message);
          // Only the session in use: a late answer of the one replaced says nothing of the new one's cursor.
          if (transport === upstream) events.answered(message);
        }
        local.send(message).catch((err: unknown) => warn(reasonOf(err)));
      };
      transport.onerror = (err) => warn(err.message);
    };
    /** A new session's handshake on `transport`: the host's own initialize (under an id of the bridge's), initialized. */
    const handshake = async (transport: Upstream, init: JSONRPCRequest, id: string) => {
      const reply = new Promise<JSONRPCMessage>((settle) => internal.set(id, settle));
      await transport.send({ ...init, id });
      const answer = await reply;
      if (!isJSONRPCResultResponse(answer))
        throw new Error(
          `the node did not open a new MCP session: ${isJSONRPCErrorResponse(answer) ? answer.error.message : 'no result'}`,
        );
      adopt(transport, answer);
      if (initialized) await transport.send(initialized);
    };
    const reopen = async (init: JSONRPCRequest) => {
      const transport = open(listeners);
      wire(transport);
      await transport.start();
      const id = `planhub-bridge-${++reopened}`;
      let timer: ReturnType<typeof setTimeout> | undefined;
      // Every message of the host waits for this: a node that takes the request and never answers must not wedge them.
      const late = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the node did not open a new MCP session within ${REOPEN_DEADLINE_MS / 1000} s`)),
          REOPEN_DEADLINE_MS,
        );
      });
      try {
        await Promise.race([handshake(transport, init, id), late]);
      } catch (err) {
        await transport.close().catch(() => undefined);
        throw err;
      } finally {
        clearTimeout(timer);
        internal.delete(id);
      }
      // Only now: a message sent on a session that is not initialized yet would be refused. The old transport is
      // closed only now too, so a failed attempt leaves one that can try again, not one that can no longer send.
      const previous = upstream;
      upstream = transport;
      await previous.close().catch(() => undefined);
      const resumesAfter = events.reopened();
      warn(
        'the node had ended the MCP session; opened a new one' +
          (resumesAfter === undefined
            ? ' (the node did not say where the old one started: its events start at the end of the log).'
            : `; its next waitForEvents continues after event ${resumesAfter}, where the old one stopped.`),
      );
    };
    const forward = async (message: JSONRPCMessage) => {
      if (reopening) await reopening;
      const used = upstream;
      try {
        await used.send(events.outgoing(message));
      } catch (err) {
        const gone = err instanceof StreamableHTTPError && err.code === 404;
        if (!gone || initialize === undefined || message === initialize) throw err;
        if (upstream === used) reopening ??= reopen(initialize).finally(() => (reopening = undefined));
        await reopening;
        // Again through the cursor: after the reopen, a wait is to continue where the old session stopped.
        await upstream.send(events.outgoing(message));
      }
    };
    const end = (code: number) => {
      if (ended) return;
      ended = true;
      pending.clear();
      void upstream
        .terminateSession()
        .catch(() => undefined)
        .finally(() => void Promise.all([upstream.close(), local.close()]).finally(() => resolve(code)));
    };
    local.onmessage = (message: JSONRPCMessage) => {
      if (isJSONRPCRequest(message) && message.method === 'initialize') initialize = message;
      if (isJSONRPCNotification(message) && message.method === 'notifications/initialized') initialized = message;
      if (isJSONRPCRequest(message)) pending.track(message);
      forward(message).catch((err: unknown) => {
        warn(reasonOf(err));
        if (isJSONRPCRequest(message)) pending.fail(message.id, reasonOf(err));
      });
    };
    local.onerror = (err) => warn(err.message);
    wire(upstream);
    process.stdin.once('end', () => end(0));
    process.stdin.once('close', () => end(0));
    void Promise.all([upstream.start(), local.start()]).catch((err: unknown) => {
      warn(reasonOf(err));
      end(1);
    });
  });

/**
 * `planhub mcp`: runs until the host closes stdin; exit codes as in mcp-help.ts. `printHelp` prints the help every
 * command prints (on stdout, as a help asked for is the output).
 */
export const mcpCommand = async (
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  printHelp: () => void,
): Promise<number> => {
  let options: ReturnType<typeof parse>;
  try {
    options = parse(argv, env);
  } catch (err) {
    warn(`${err instanceof Error ? err.message : String(err)}\n(run with --help for usage)`);
    return 2;
  }
  if (options.help) {
    printHelp();
    return 0;
  }
  if (options.token === undefined && options.agent === undefined) {
    warn('name the agent with --agent <id> (or PLANHUB_AGENT), or pass a --token that names it.');
    return 2;
  }
  const headers: Record<string, string> =
    options.token === undefined ? {} : { authorization: `Bearer ${options.token}` };
  let endpoint: URL;
  try {
    endpoint = mcpEndpoint(options);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    warn(err.message);
    return 2;
  }
  return bridge(
    new StdioServerTransport(),
    ({ onBroken, onOpened }) =>
      new StreamableHTTPClientTransport(endpoint, {
        requestInit: { headers },
        fetch: fetchNotingSessionStart(fetchWatchingStreams(onBroken), onOpened),
      }),
  );
};
