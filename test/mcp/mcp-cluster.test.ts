import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { REDIS_BACKENDS, startCluster, type Cluster } from '../helpers/cluster.ts';
import { runFanIn } from './fan-in.ts';
import { mcpClient } from './mcp-clients.ts';

/** MCP sessions live on the node that opened them; the events that join them come from the shared Redis log. */
describe.each(REDIS_BACKENDS)('MCP across two server processes on one Redis (%s)', (backend) => {
  let cluster: Cluster;
  const clients: Client[] = [];
  beforeAll(async () => {
    cluster = await startCluster({ backend, nodes: 2, env: { PLANHUB_APPROVAL_POLICY: 'auto' } });
  });
  afterAll(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await cluster?.close();
  });
  const join = async (node: number, agentId: string) => {
    const client = await mcpClient('http', cluster.urls[node] ?? '', { workspace: 'team', agentId });
    clients.push(client);
    return client;
  };

  it('runs the fan-in with the parent on one node and the subagents on the other', async () => {
    const parent = await join(0, 'parent');
    await runFanIn(parent, await join(1, 'sub-a'), await join(1, 'sub-b'), { a: 'sub-a', b: 'sub-b' });
  });
});
