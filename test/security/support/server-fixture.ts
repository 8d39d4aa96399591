import type { PlanHubServer, ServerConfigInput, ServerDeps } from '@planhub/server';
import { createServer } from '@planhub/server';
import { afterEach, inject } from 'vitest';
import { uniquePrefix } from '../../helpers/servers.ts';
import { deletePrefix } from '../../helpers/stores.ts';
import { openAuth, rawClient, type RawClient } from './raw-client.ts';

/**
 * The servers and raw clients one test starts, closed after it, and the Redis keys it wrote, deleted. Call it in a
 * describe block; `defaults` apply to every server it starts (a test's own config wins, key by key at the top level).
 */
export const serverFixture = (defaults: ServerConfigInput = {}) => {
  const servers: PlanHubServer[] = [];
  const clients: RawClient[] = [];
  let prefix: string | undefined;
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await Promise.all(servers.splice(0).map((s) => s.close()));
    if (prefix) await deletePrefix(inject('redisUrl'), prefix);
    prefix = undefined;
  });
  const started = async (config: ServerConfigInput = {}, deps?: ServerDeps) => {
    const server = createServer({ port: 0, logLevel: 'silent', ...defaults, ...config }, deps);
    servers.push(server);
    return { url: (await server.listen()).url, server };
  };
  /** Connects a raw client with any credentials (a token, open-mode fields). */
  const connect = async (url: string, auth: object): Promise<RawClient> => {
    const client = await rawClient(url, auth);
    clients.push(client);
    return client;
  };
  return {
    /** The private Redis under this test's key prefix: every node given it shares one state. */
    redis: (): ServerConfigInput => ({ redisUrl: inject('redisUrl'), redisPrefix: (prefix ??= uniquePrefix()) }),
    /** Starts a server on a free port; resolves with its URL. */
    node: async (config: ServerConfigInput = {}, deps?: ServerDeps): Promise<string> =>
      (await started(config, deps)).url,
    /** Starts a server on a free port; resolves with its URL and the server (to reach its services). */
    started,
    connect,
    /** Connects a raw client with open-mode credentials. */
    join: (url: string, workspace: string, agent: string, role: 'agent' | 'user' | 'dashboard' = 'agent') =>
      connect(url, openAuth(workspace, agent, role)),
  };
};
