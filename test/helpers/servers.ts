import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConnectOptions, PlanHubClient } from '@planhub/client-sdk';
import { connect } from '@planhub/client-sdk';
import type { PlanHubServer, ServerConfigInput } from '@planhub/server';
import { createServer } from '@planhub/server';
import { inject } from 'vitest';

export type StoreKind = 'memory' | 'redis';
export const STORE_KINDS: readonly StoreKind[] = ['memory', 'redis'];
/** What an in-process server can run on: the kinds above, and the durable file store in a fresh directory. */
export type HarnessStoreKind = StoreKind | 'file';

/** Every test gets its own key prefix on the shared test Redis, so tests never see each other's data. */
export const uniquePrefix = () => `t-${randomUUID().slice(0, 8)}`;

export interface Harness {
  server: PlanHubServer;
  url: string;
  client(agentId: string, options?: Partial<ConnectOptions>): Promise<PlanHubClient>;
  close(): Promise<void>;
}

/** An in-process server on port 0 plus clients; close() tears all of it down. */
export const startHarness = async (store: HarnessStoreKind, config: ServerConfigInput = {}): Promise<Harness> => {
  const storagePath = store === 'file' ? mkdtempSync(join(tmpdir(), 'planhub-harness-')) : undefined;
  const server = createServer({
    port: 0,
    logLevel: 'silent',
    ...(store === 'redis' ? { redisUrl: inject('redisUrl'), redisPrefix: uniquePrefix() } : {}),
    ...(storagePath ? { storageType: 'file' as const, storagePath } : {}),
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
      if (storagePath) rmSync(storagePath, { recursive: true, force: true });
    },
  };
};
