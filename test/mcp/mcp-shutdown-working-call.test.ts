import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createMemoryStore, createServer, type PlanHubServer } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';
import { holdingCommits } from '../helpers/held-commits.ts';
import { mcpClient, refusalOf, textOf } from './mcp-clients.ts';

/**
 * A node shutting down lets calls doing work finish, then answers the calls still waiting "closed while the call was
 * waiting … Call again". A call whose work ended as the drain did got that answer too, though it was applied: its
 * answer was still on its way back when the session closed, and a host that called again made the plan twice.
 */
describe('an MCP call doing work while the node shuts down', () => {
  let server: PlanHubServer | undefined;
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await server?.close();
    server = undefined;
  });

  it('is answered with its result, not told to call again', async () => {
    const held = holdingCommits(createMemoryStore({ eventRetention: 1000 }));
    const node = createServer({ port: 0, logLevel: 'silent', approvalPolicy: 'auto' }, { store: held.store });
    server = node;
    const { url } = await node.listen();
    const host = await mcpClient('http', url, { workspace: 'team', agentId: 'worker' });
    clients.push(host);

    const hold = held.holdNext((commit) => JSON.stringify(commit).includes('made during shutdown'));
    const call = host.callTool({ name: 'createPlan', arguments: { title: 'made during shutdown', steps: ['a'] } });
    await hold.reached;
    const closing = node.close();
    // The drain has begun (the node stops taking calls at once); the held commit now ends the call's work.
    await new Promise((resolve) => setImmediate(resolve));
    hold.release();
    const result = (await call) as CallToolResult;
    await closing;
    server = undefined;
    expect(refusalOf(result)).toBe('');
    expect(JSON.parse(textOf(result))).toMatchObject({ title: 'made during shutdown', status: 'pending' });
    const events = await held.store.readEvents('team', { count: 100 });
    expect(events.filter((e) => e.event_type === 'plan_created')).toHaveLength(1);
  });
});
