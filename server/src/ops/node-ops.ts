import type { Server as HttpServer } from 'node:http';
import type { Logger } from 'pino';
import type { Server as IoServer } from 'socket.io';
import type { ServerConfig } from '../config.ts';
import { serveDashboard } from '../dashboard/serve.ts';
import { startReporters } from '../reporters/start-reporters.ts';
import type { Store } from '../store/store.ts';
import type { Dispatch } from '../tools/dispatch.ts';
import { countConnections } from '../transport/connection-metrics.ts';
import type { Route } from '../transport/http-routes.ts';
import { onlyMethods, PROBE, READ } from '../transport/only-methods.ts';
import { refuse } from '../transport/refuse.ts';
import { createCallGate } from './call-gate.ts';
import { createMetrics } from './metrics.ts';
import { metricsRefusal } from './metrics-auth.ts';
import { readinessRoute, rootRoute } from './probe-routes.ts';
import { monitorStore } from './store-monitor.ts';
import type { Revocations } from '../store/revocations/revocations.ts';
import { tapStore } from './store-tap.ts';
import { redactUrl } from '../config-error.ts';
import { lastConnectionFailure } from '../store/redis/connection-log.ts';

/**
 * What a node needs to be operated: metrics, reporters, the dashboard and readiness routes, and graceful
 * shutdown. createServer wires it in a few lines; the parts live in ops/, reporters/ and dashboard/.
 */
export const createNodeOps = (
  config: ServerConfig,
  log: Logger,
  rawStore: Store,
  revocations: Pick<Revocations, 'isRevoked'>,
) => {
  const metrics = createMetrics();
  const reporters = startReporters(config.reporters, { log, metrics });
  const store = tapStore(rawStore, {
    committed(events) {
      metrics.committed(events);
      reporters.committed(events);
    },
    conflict: () => metrics.storeConflict(),
    failed: (operation) => metrics.storeError(operation),
  });
  let gate: ReturnType<typeof createCallGate> | undefined;
  const dashboard = onlyMethods(READ, serveDashboard(log));
  // The logs name where the store is (its URL without credentials); /readyz, which answers anyone, only what it is.
  const storeName = config.redisClusterNodes
    ? `Redis Cluster at ${config.redisClusterNodes.join(',')}`
    : config.redisUrl === undefined
      ? 'The store'
      : `Redis at ${redactUrl(config.redisUrl)}`;
  const probeName = config.redisClusterNodes ? 'Redis Cluster' : config.redisUrl === undefined ? 'The store' : 'Redis';
  // The Redis store names its command connection so (redis-store.ts); its last failure is the outage's reason.
  const reason = () => lastConnectionFailure(`planhub:${config.redisPrefix}`);
  // The raw store: the monitor's own checks are not calls, and must not move planhub_store_errors_total.
  const dataLoss = () => rawStore.dataLoss?.();
  const formatConflict = () => rawStore.formatConflict?.();
  let io: IoServer | undefined;
  /** Every client is disconnected, on the next turn: it reconnects (through a balancer, to a ready node) and is told. */
  const disconnectAll = () => setImmediate(() => io?.disconnectSockets(true));
  // A node older than the store's data: once, so its clients move to a ready node instead of being refused here.
  let toldOfConflict = false;
  const noticeConflict = () => {
    if (toldOfConflict || formatConflict() === undefined) return;
    toldOfConflict = true;
    disconnectAll();
  };
  // Subscribers waiting for events that will never come: they renew their subscriptions and are told DATA_LOSS.
  const loss = { dataLoss, onLoss: disconnectAll };
  const monitor =
    config.redisUrl === undefined && config.redisClusterNodes === undefined
      ? undefined
      : monitorStore({
          ping: () => rawStore.ping(),
          log,
          name: storeName,
          reason,
          stillUnready: () =>
            dataLoss() === undefined
              ? undefined
              : 'it came back without the data it had (/readyz answers 503 store_data_lost; see docs/operations.md)',
          // The ping reads the store's epoch: a loss found by it ends waiting calls at once, not at their next call.
          checked: () => {
            if (dataLoss() !== undefined) gate?.noticeLoss();
            noticeConflict();
          },
        });
  monitor?.start();

  const routes: Record<string, Route> = {
    '/': onlyMethods(PROBE, rootRoute),
    '/readyz': onlyMethods(
      PROBE,
      readinessRoute({
        draining: () => gate?.draining ?? false,
        ping: () => store.ping(),
        storeName: probeName,
        downSince: () => monitor?.health().downSince,
        reason: () => (monitor === undefined ? undefined : reason()),
        writeHealth: () => rawStore.writeHealth(),
        dataLoss,
        formatConflict,
      }),
    ),
    '/metrics': onlyMethods(READ, async (req, res) => {
      const refusal = await metricsRefusal(config, req, revocations);
      if (refusal) {
        const code =
          refusal.status === 401 ? 'UNAUTHENTICATED' : refusal.status === 503 ? 'UNAVAILABLE' : 'PERMISSION_DENIED';
        refuse(res, refusal.status, code, refusal.message, { 'www-authenticate': 'Bearer' });
        return;
      }
      // Success stays Prometheus text: that is what a scraper parses.
      const { contentType, body } = await metrics.scrape();
      res.writeHead(200, { 'content-type': contentType }).end(body);
    }),
    '/dashboard': dashboard,
    '/dashboard/*': dashboard,
  };

  return {
    /** The store every call uses: the node's store, observed. */
    store,
    metrics,
    routes,
    /** Measures every call and holds them back during shutdown. */
    gate(dispatch: Dispatch): Dispatch {
      gate = createCallGate(dispatch, metrics, { storeDeadlineMs: config.storeDeadlineMs, loss });
      return gate.dispatch;
    },
    watch(server: IoServer): void {
      io = server;
      countConnections(server, (role, delta) => metrics.connection(role, delta));
    },
    /**
     * First half of a graceful shutdown: /readyz answers 503, no new connections are accepted, waiting calls end,
     * and calls doing work get up to shutdownGraceMs to finish. Then the caller disconnects the clients.
     */
    async drain(http: HttpServer): Promise<void> {
      http.close();
      const finished = (await gate?.drain(config.shutdownGraceMs)) ?? true;
      if (!finished) log.warn({ grace_ms: config.shutdownGraceMs }, 'calls still running at shutdown; disconnecting');
    },
    /** Second half, once clients are disconnected: settle held calls, drop idle HTTP connections, flush reporters. */
    async close(http: HttpServer): Promise<void> {
      monitor?.stop();
      gate?.release();
      http.closeAllConnections();
      await reporters.close();
    },
  };
};
