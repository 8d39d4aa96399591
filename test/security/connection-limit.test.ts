import type { PlanHubServer, ServerConfigInput } from '@planhub/server';
import { createServer } from '@planhub/server';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { uniquePrefix } from '../helpers/servers.ts';
import { deletePrefix } from '../helpers/stores.ts';
import { openAuth, rawClient, type RawClient } from './support/raw-client.ts';

const refusal = (url: string, agent: string, workspace = 'ws') =>
  rawClient(url, openAuth(workspace, agent)).then(
    (c) => {
      c.close();
      return 'connected';
    },
    (err: Error) => err.message,
  );

describe('connections per agent', () => {
  const servers: PlanHubServer[] = [];
  const clients: RawClient[] = [];
  let prefix: string | undefined;
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await Promise.all(servers.splice(0).map((s) => s.close()));
    if (prefix) await deletePrefix(inject('redisUrl'), prefix);
    prefix = undefined;
  });

  const node = async (config: ServerConfigInput) => {
    const server = createServer({ port: 0, logLevel: 'silent', limits: { connectionsPerAgent: 2 }, ...config });
    servers.push(server);
    return (await server.listen()).url;
  };
  const hold = async (url: string, agent: string, workspace = 'ws') => {
    const client = await rawClient(url, openAuth(workspace, agent));
    clients.push(client);
    return client;
  };

  it('counts an agent across nodes on Redis, refuses the one too many with the reason, and frees slots', async () => {
    prefix = uniquePrefix();
    const shared = { redisUrl: inject('redisUrl'), redisPrefix: prefix };
    const [a, b] = [await node(shared), await node(shared)];
    const first = await hold(a, 'busy');
    await hold(b, 'busy');
    expect(await refusal(a, 'busy')).toMatch(/Too many connections: agent busy already has 2 open \(limit 2\)/);
    expect(await refusal(b, 'busy')).toMatch(/Too many connections/);
    // Another agent, and the same agent name in another workspace, are counted separately.
    expect(await refusal(b, 'other')).toBe('connected');
    await hold(a, 'busy', 'elsewhere');
    // A refused handshake holds no slot, and a closed connection gives its slot back.
    first.close();
    await expect.poll(() => refusal(b, 'busy')).toBe('connected');
  });

  it('counts per node on the memory store', async () => {
    const url = await node({});
    await hold(url, 'busy');
    const second = await hold(url, 'busy');
    expect(await refusal(url, 'busy')).toMatch(/Too many connections/);
    second.close();
    await expect.poll(() => refusal(url, 'busy')).toBe('connected');
  });
});
