import { mintToken } from '@planhub/server';
import { describe, expect, it } from 'vitest';
import { startHarness } from '../helpers/servers.ts';
import { runFanIn } from './fan-in.ts';
import { callJson, callRaw, endpointOf, mcpClient, refusalOf } from './mcp-clients.ts';
import { mcpTeam } from './mcp-team.ts';
import { initializeRequest, listToolsRequest, rawMcp } from './raw-mcp.ts';

const SECRET = 'mcp-test-secret-0123456789';
const token = (agent_id: string) => mintToken(SECRET, { workspace: 'team', agent_id, role: 'agent' }, '10m');

describe('MCP in secret mode', () => {
  const team = mcpTeam('http');

  it('takes each session identity from its bearer token, over HTTP and through the stdio bridge', async () => {
    const h = await startHarness('redis', { secret: SECRET, approvalPolicy: 'auto' });
    team.harness = h;
    const url = h.url;
    // The URL claims another workspace: in secret mode only the token counts.
    const join = async (kind: 'http' | 'stdio', agentId: string) => {
      const spec = { workspace: 'elsewhere', agentId, token: await token(agentId), urlIdentity: true };
      return team.adopt(await mcpClient(kind, url, spec));
    };
    const parent = await join('http', 'parent');
    await runFanIn(parent, await join('stdio', 'sub-a'), await join('http', 'sub-b'), { a: 'sub-a', b: 'sub-b' });
    const workspace = await callJson<{ workspace: string }>(parent, 'getWorkspace', {});
    expect(workspace.workspace).toBe('team');
  });

  it('refuses a session with a bad or missing token, saying why', async () => {
    const h = await startHarness('memory', { secret: SECRET });
    team.harness = h;
    const forged = await mintToken(
      'another-secret-0123456789',
      { workspace: 'team', agent_id: 'x', role: 'agent' },
      '10m',
    );
    await expect(mcpClient('http', h.url, { workspace: 'team', agentId: 'x', token: forged })).rejects.toThrow(
      /UNAUTHENTICATED: Token signature does not verify/,
    );
    const bare = await rawMcp(endpointOf(h.url, { workspace: 'team', agentId: 'x' }), initializeRequest);
    expect(bare.status).toBe(401);
    expect((JSON.parse(bare.text) as { error: { message: string } }).error.message).toMatch(
      /UNAUTHENTICATED: This server is in secret mode: send "Authorization: Bearer <token>"/,
    );
  });

  it('refuses a request that brings a session id with another agent token', async () => {
    const h = await startHarness('memory', { secret: SECRET });
    team.harness = h;
    const endpoint = new URL('/mcp', h.url);
    const opened = await rawMcp(endpoint, initializeRequest, { authorization: `Bearer ${await token('owner')}` });
    expect(opened.status).toBe(200);
    expect(opened.sessionId).toBeTruthy();
    const session = { 'mcp-session-id': opened.sessionId ?? '' };
    const stolen = await rawMcp(endpoint, listToolsRequest, {
      ...session,
      authorization: `Bearer ${await token('thief')}`,
    });
    expect(stolen.status).toBe(403);
    expect(stolen.text).toMatch(/PERMISSION_DENIED: This MCP session belongs to another agent/);
    const own = await rawMcp(endpoint, listToolsRequest, {
      ...session,
      authorization: `Bearer ${await token('owner')}`,
    });
    expect(own.status).toBe(200);
    expect(own.text).toContain('waitForEvents');
  });

  it('offers a dashboard token only the tools that read', async () => {
    const h = await startHarness('memory', { secret: SECRET });
    team.harness = h;
    const board = await mintToken(SECRET, { workspace: 'team', agent_id: 'board', role: 'dashboard' }, '10m');
    const client = team.adopt(await mcpClient('http', h.url, { workspace: 'team', agentId: 'board', token: board }));
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['getPlanStatus', 'getWorkspace', 'waitForEvents']));
    expect(names).not.toContain('createPlan');
    const refused = await callRaw(client, 'createPlan', { title: 'No', steps: ['s'] });
    expect(refused).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringMatching(/^\{"error":"Dashboards are read-only/) as string }],
    });
    expect(refusalOf(refused)).toMatch(/^PERMISSION_DENIED: Dashboards are read-only/);
  });
});
