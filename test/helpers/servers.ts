import { randomUUID } from 'node:crypto';
import type { ConnectOptions, PlanHubClient } from '@planhub/client-sdk';
import { connect } from '@planhub/client-sdk';
import type { PlanHubServer, ServerConfigInput } from '@planhub/server';
import { createServer } from '@planhub/server';
import { inject } from 'vitest';

export type StoreKind = 'memory' | 'redis';
export const STORE_KINDS: readonly StoreKind[] = ['memory', 'redis'];

/** Every test gets its own key prefix on the shared test Redis, so tests never see each other's data. */
export const uniquePrefix = () => `t-${randomUUID().slice(0, 8)}`;

export interface Harness {
  server: PlanHubServer;
  url: string;
  client(agentId: string, options?: Partial<ConnectOptions>): Promise<PlanHubClient>;
  close(): Promise<void>;
}

/** An in-process server on port 0 plus clients; close() tears all of it down. */
export const startHarness = async (store: StoreKind, config: ServerConfigInput = {}): Promise<Harness> => {
  const server = createServer({
    port: 0,
    logLevel: 'silent',
    ...(store === 'redis' ? { redisUrl: inject('redisUrl'), redisPrefix: uniquePrefix() } : {}),
    ...config,
  });
  const { url } = await server.listen();
  const clients: PlanHubClient[] = [];
  return {
    server,
    url,
    async client(agentId, options = {}) {
      const client = await connect({ url, agentId, workspace: 'ws', ...options });
      clients.push(client);
      return client;
    },
    async close() {
      for (const c of clients) c.close();
      await server.close();
    },
  };
};
