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
import { createMemoryConnectionCounter, createRedisConnectionCounter } from './limits/connection-counter.ts';
import { createLogger } from './logger.ts';
import { createStore } from './store/create-store.ts';
import type { Store } from './store/store.ts';
import type { Services } from './tools/context.ts';
import { createDispatch } from './tools/dispatch.ts';
import { HANDLERS } from './tools/handlers.ts';
import { authenticatorFor } from './transport/authenticate.ts';
import { createHttpHandler } from './transport/http-routes.ts';
import { limitConnections } from './transport/connection-limit.ts';
import { attachSocketServer } from './transport/socket-server.ts';
import { createOriginPolicy } from './transport/origin-policy.ts';
import { createMemoryRevocations, createRedisRevocations } from './auth/revocations.ts';
import { revokeTokenRoute } from './auth/revoke-route.ts';
import { enforceTokens } from './transport/token-enforcement.ts';
import { createNodeOps } from './ops/node-ops.ts';

export interface ServerDeps {
  log?: Logger;
  store?: Store;
}

export interface PlanHubServer {
  listen(): Promise<{ port: number; host: string; url: string }>;
  close(): Promise<void>;
  readonly config: ServerConfig;
  readonly services: Services;
}

/** Builds a node with no side effects: nothing listens until listen(), and close() undoes everything. */
export const createServer = (input: ServerConfigInput = {}, deps: ServerDeps = {}): PlanHubServer => {
  const config = parseConfig(input);
  const log = deps.log ?? createLogger(config.logLevel);
  const store = deps.store ?? createStore(config, log);
  const ops = createNodeOps(config, log, capEventSize(store));
  const hub = new EventHub(store, (err) => log.error({ err }, 'event listener failed'));
  const services: Services = {
    store: ops.store,
    hub,
    config,
    log,
    now: () => new Date().toISOString(),
    newId: randomId,
    catalog: toolCatalog,
    callLimiter: createCallLimiter({ limits: config.limits, keyPrefix: config.redisPrefix, redis: store.redis, log }),
  };
  // Only tokens can be revoked: open mode keeps the (empty) memory list and reads nothing from Redis.
  const revocations =
    store.redis === undefined || config.secret === undefined
      ? createMemoryRevocations()
      : createRedisRevocations({
          redis: store.redis,
          prefix: config.redisPrefix,
          checkMs: config.revocationCheckMs,
          log,
        });
  const dispatch = ops.gate(createDispatch(services, HANDLERS));
  const http = createHttpServer(
    createHttpHandler(
      {
        '/healthz': (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n'),
        ...ops.routes,
        ...(config.secret !== undefined ? { '/tokens/revoke': revokeTokenRoute(config.secret, revocations) } : {}),
      },
      createOriginPolicy(config),
    ),
  );
  const io = attachSocketServer(http, { config, log, dispatch, authenticate: authenticatorFor(config), hub, store });
  const connections =
    store.redis === undefined
      ? createMemoryConnectionCounter()
      : createRedisConnectionCounter({ redis: store.redis, prefix: config.redisPrefix, log });
  if (config.secret !== undefined)
    enforceTokens(io, { revocations, maxLifetimeSeconds: config.tokenMaxLifetimeSeconds, log });
  limitConnections(io, { counter: connections, max: config.limits.connectionsPerAgent, log });
  ops.watch(io);
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
        await io.close();
        connections.close();
        revocations.close();
        hub.close();
        await ops.close(http);
        if (!deps.store) await store.close();
      })()),
  };
};
