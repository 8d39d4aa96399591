import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createMemoryStore, createServer } from '@planhub/server';
import { describe, expect, it } from 'vitest';
import { refusingPort } from '../helpers/free-port.ts';
import { startHarness } from '../helpers/servers.ts';
import { runFanIn } from './fan-in.ts';
import { mcpTeam } from './mcp-team.ts';
import { callJson, mcpClient } from './mcp-clients.ts';

/** `planhub mcp` spawned the way an MCP host spawns a stdio server, driven by the official MCP client. */
describe('MCP through the planhub mcp stdio bridge', () => {
  const team = mcpTeam('stdio');
  const join = team.join;

  it('runs a parent and two subagents, one bridge process each, through a full fan-in', async () => {
    team.harness = await startHarness('redis', { approvalPolicy: 'auto' });
    const [parent, subA, subB] = await Promise.all([join('parent'), join('sub-a'), join('sub-b')]);
    await runFanIn(parent, subA, subB, { a: 'sub-a', b: 'sub-b' });
  });

  it('offers only the dialects given with --dialects', async () => {
    team.harness = await startHarness('memory');
    const names = (await (await join('picky', '004')).listTools()).tools.map((t) => t.name);
    const all = (await (await join('everything')).listTools()).tools.map((t) => t.name);
    expect(names.length).toBeLessThan(all.length);
    expect(names).toContain('waitForEvents');
    expect(names).not.toContain('createPlan');
    expect(all).toEqual(expect.arrayContaining(names));
  });

  it('fails the initialize instead of hanging when no node answers at the URL', async () => {
    const dead = `http://127.0.0.1:${await refusingPort()}`;
    await expect(mcpClient('stdio', dead, { workspace: 'team', agentId: 'lost' })).rejects.toThrow(
      /fetch failed|ECONNREFUSED/,
    );
  });

  it('opens a new session by itself when the node no longer knows the old one, so the host keeps working', async () => {
    // Two lives of one node on one port and one store: the restart forgets every MCP session.
    const store = createMemoryStore({ eventRetention: 1000 });
    const first = createServer({ port: 0, logLevel: 'silent' }, { store });
    const { url } = await first.listen();
    const client = await mcpClient('stdio', url, { workspace: 'team', agentId: 'patient' });
    team.adopt(client);
    let stderr = '';
    (client.transport as StdioClientTransport).stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const { plan_id } = await callJson<{ plan_id: string }>(client, 'createPlan', { title: 'Long', steps: ['s'] });
    await first.close();
    const second = createServer({ port: Number(new URL(url).port), logLevel: 'silent' }, { store });
    await second.listen();
    try {
      expect(await callJson(client, 'getPlanStatus', { plan_id })).toMatchObject({ plan_id, status: 'pending' });
      expect(stderr).toContain('the node had ended the MCP session; opened a new one');
    } finally {
      await team.closeSessions();
      await second.close();
      await store.close();
    }
  });
});
