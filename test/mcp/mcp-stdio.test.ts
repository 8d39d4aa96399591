import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.ts';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { runFanIn } from './fan-in.ts';
import { mcpClient } from './mcp-clients.ts';

/** `planhub mcp` spawned the way an MCP host spawns a stdio server, driven by the official MCP client. */
describe('MCP through the planhub mcp stdio bridge', () => {
  let h: Harness | undefined;
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await h?.close();
  });
  const join = async (agentId: string, dialects?: string) => {
    const client = await mcpClient('stdio', h?.url ?? '', {
      workspace: 'team',
      agentId,
      ...(dialects !== undefined ? { dialects } : {}),
    });
    clients.push(client);
    return client;
  };

  it('runs a parent and two subagents, one bridge process each, through a full fan-in', async () => {
    h = await startHarness('redis', { approvalPolicy: 'auto' });
    const [parent, subA, subB] = await Promise.all([join('parent'), join('sub-a'), join('sub-b')]);
    await runFanIn(parent, subA, subB, { a: 'sub-a', b: 'sub-b' });
  });

  it('offers only the dialects given with --dialects', async () => {
    h = await startHarness('memory');
    const names = (await (await join('picky', '004')).listTools()).tools.map((t) => t.name);
    const all = (await (await join('everything')).listTools()).tools.map((t) => t.name);
    expect(names.length).toBeLessThan(all.length);
    expect(names).toContain('waitForEvents');
    expect(names).not.toContain('createPlan');
    expect(all).toEqual(expect.arrayContaining(names));
  });

  it('fails the initialize instead of hanging when no node answers at the URL', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    await expect(mcpClient('stdio', dead, { workspace: 'team', agentId: 'lost' })).rejects.toThrow(
      /fetch failed|ECONNREFUSED/,
    );
  });
});
