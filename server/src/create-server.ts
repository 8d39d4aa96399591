import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { toolCatalog } from '@planhub/shared';
import type { ServerConfig, ServerConfigInput } from './config.ts';
import { parseConfig } from './config.ts';
import { openModeRefusal } from './auth/open-mode.ts';
import { randomId } from './core/random-id.ts';
import { EventHub } from './events/event-hub.ts';
import { capEventSize } from './events/event-size.ts';
import { createCallLimiter } from './limits/call-limiter.ts';
import { createLogger } from './logger.ts';
import { createStore } from './store/create-store.ts';
import type { Store } from './store/store.ts';
import type { Services } from './tools/context.ts';
import { createDispatch } from './tools/dispatch.ts';
import { HANDLERS } from './tools/handlers.ts';
import { authenticatorFor } from './transport/authenticate.ts';
import { allowCors, MCP_CORS } from './transport/cors.ts';
import { createHttpHandler } from './transport/http-routes.ts';
import type { HttpTimeouts } from './transport/http-timeouts.ts';
import { httpServerOptions } from './transport/http-timeouts.ts';
import { onlyMethods, PROBE } from './transport/only-methods.ts';
import { limitConnections } from './transport/connection-limit.ts';
import { attachSocketServer } from './transport/socket-server.ts';
import { createCallAdmission } from './transport/call-admission.ts';
import { createOriginPolicy } from './transport/origin-policy.ts';
import { createMemoryRevocations } from './store/revocations/revocations.ts';
import { revokeTokenRoute } from './auth/revoke-route.ts';
import { enforceTokens } from './transport/token-enforcement.ts';
import { createNodeOps } from './ops/node-ops.ts';
import { createAddressOutbound } from './transport/address-outbound.ts';
import { createMcpEndpoint } from './mcp/mcp-endpoint.ts';
import type { McpEndpointOptions } from './mcp/mcp-endpoint.ts';
import { createPresence } from './presence/create-presence.ts';
import { watchPresence } from './transport/presence-hooks.ts';
import { WaitSlots } from './limits/wait-slots.ts';
import { chargeAnswer } from './limits/answer-cost.ts';
import { settleBy } from './ops/settle-by.ts';
import { isoClock } from './iso-clock.ts';

export interface ServerDeps {
  log?: Logger;
  store?: Store;
  /** MCP session expiry (idle time, clock). */
  mcp?: McpEndpointOptions;
  /** Limits on slow HTTP clients (defaults in transport/http-timeouts.ts); tests shorten them. */
  http?: Partial<HttpTimeouts>;
}

export interface PlanHubServer {
  listen(): Promise<{ port: number; host: string; url: string }>;
  close(): Promise<void>;
  readonly config: ServerConfig;
  readonly services: Services;
}

/** How long a node's shutdown may take after its drain (shutdownGraceMs) before it stops waiting on the store. */
const CLOSE_AFTER_DRAIN_MS = 3_000;

/** Builds a node with no side effects: nothing listens until listen(), and close() undoes everything. */
export const createServer = (input: ServerConfigInput = {}, deps: ServerDeps = {}): PlanHubServer => {
  const config = parseConfig(input);
  const log = deps.log ?? createLogger(config.logLevel);
  const store = deps.store ?? createStore(config, log);
  // Only tokens can be revoked: open mode keeps an (empty) memory list and reads nothing from Redis.
  const revocations =
    config.secret === undefined
      ? createMemoryRevocations()
      : store.revocations({ checkMs: config.revocationCheckMs, log });
  const ops = createNodeOps(config, log, capEventSize(store), revocations);
  const hub = new EventHub(store, (err) => log.error({ err }, 'event listener failed'));
  const services: Services = {
    store: ops.store,
    hub,
    config,
    log,
    now: isoClock(),
    newId: randomId,
    catalog: toolCatalog,
    callLimiter: createCallLimiter({ limits: config.limits, backend: store.limits, log }),
    waitSlots: new WaitSlots(),
  };
  const presence = createPresence(config, store, log);
  services.workspaces = presence;
  const inner = createDispatch(services, HANDLERS);
  const dispatch = presence.wrap(ops.gate(inner));
  presence.start();
  const tokens = { revocations, maxLifetimeSeconds: config.tokenMaxLifetimeSeconds };
  // One policy for every door (plain HTTP, /mcp, socket.io), so they cannot disagree about a page or a host name.
  const originPolicy = createOriginPolicy(config);
  // One total per client address for its sockets and its MCP event streams together.
  const addressOutbound = createAddressOutbound(config.limits.outboundBytesPerAddress);
  // One budget per client address for its socket calls and its MCP calls together.
  const admission = createCallAdmission(config.limits, log.child({ module: 'socket' }));
  const mcp = createMcpEndpoint(
    { services, dispatch, log, outbound: ops.metrics.outbound, addressOutbound, admission },
    tokens,
    deps.mcp,
  );
  const http = createHttpServer(
    httpServerOptions(deps.http),
    createHttpHandler(
      {
        '/healthz': onlyMethods(
          PROBE,
          (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n'),
        ),
        ...ops.routes,
        // The one route pages from other origins (PLANHUB_ALLOWED_ORIGINS) may read: browser MCP clients.
        '/mcp': allowCors(config.allowedOrigins, MCP_CORS, mcp.route),
        ...(config.secret !== undefined
          ? {
              '/tokens/revoke': onlyMethods(
                ['POST'],
                revokeTokenRoute(config.secret, revocations),
                'with JSON { "token": "<the token to revoke>" }',
              ),
            }
          : {}),
      },
      originPolicy,
      (err, path, clientGone) =>
        // A client that hangs up mid-request is routine (and can be made to happen at will): not an error.
        clientGone
          ? log.debug(
              { path, reason: err instanceof Error ? err.message : String(err) },
              'HTTP client left mid-request',
            )
          : log.error({ err, path }, 'HTTP route failed'),
    ),
  );
  const io = attachSocketServer(http, {
    config,
    log,
    dispatch,
    authenticate: authenticatorFor(config),
    originPolicy,
    hub,
    store,
    outbound: ops.metrics.outbound,
    addressOutbound,
    admission,
    answered: (caller, bytes) => chargeAnswer(services.callLimiter, caller, bytes),
  });
  const connections = store.limits.connectionCounter({ log });
  if (config.secret !== undefined) enforceTokens(io, { ...tokens, log });
  limitConnections(io, { counter: connections, max: config.limits.connectionsPerAgent, log });
  ops.watch(io);
  watchPresence(io, presence);
  let closing: Promise<void> | undefined;

  return {
    config,
    services,
    listen: () =>
      new Promise((resolve, reject) => {
        // Embedders get the same protection as main.ts: open mode never listens beyond loopback.
        const refusal = openModeRefusal(config);
        if (refusal !== undefined) {
          reject(new Error(refusal));
          return;
        }
        http.once('error', reject);
        http.listen(config.port, config.host, () => {
          const { port } = http.address() as AddressInfo;
          const host = config.host.includes(':') ? `[${config.host}]` : config.host;
          resolve({ port, host: config.host, url: `http://${host}:${port}` });
        });
      }),
    close: () =>
      (closing ??= (async () => {
        await ops.drain(http);
        // What follows the drain writes to the store (connection leases, presence) and flushes reporters: with Redis
        // hung each write waited out its own deadline, and a node with one client took 16-19 s to stop, past a
        // container's grace period. Past CLOSE_AFTER_DRAIN_MS the rest is left to expire (leases and presence have
        // TTLs, and the other nodes report this one lost), so the process stops in time to drain, not be killed.
        // A step that fails does not stop the others; close() then fails with the first error, as it did.
        const deadline = performance.now() + CLOSE_AFTER_DRAIN_MS;
        const failures: unknown[] = [];
        // Each step's own likely cause when it runs late: a frozen client holding its connection open was logged as
        // "the store is slow" four times (once for its step, then for every step after the time had run out).
        let outOfTime = false;
        const step = async (name: string, slow: string, run: () => Promise<unknown>) => {
          const settled = await settleBy(deadline, run());
          if ('late' in settled) {
            const cause = outOfTime ? `the ${CLOSE_AFTER_DRAIN_MS} ms after the drain had run out` : slow;
            log.warn({ step: name, bound_ms: CLOSE_AFTER_DRAIN_MS }, `shutdown step cut short: ${cause}`);
            outOfTime = true;
          } else if ('failed' in settled) failures.push(settled.failed);
        };
        // Before io.close(), which waits for the HTTP server: an MCP host's open event stream would hold it up.
        await step('mcp', 'an MCP client keeps its event stream open', () => mcp.close());
        await step('sockets', 'a client does not close its connection (frozen or gone silent)', () => io.close());
        await step('presence', 'the store is slow', () => presence.close());
        connections.close();
        revocations.close();
        hub.close();
        await step('http', 'a client does not close its HTTP connection', () => ops.close(http));
        if (!deps.store) await step('store', 'the store is slow', () => store.close());
        if (failures.length > 0) throw failures[0];
      })()),
  };
};
