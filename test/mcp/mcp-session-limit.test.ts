import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { callRaw, endpointOf, refusalOf } from './mcp-clients.ts';
import { mcpTeam } from './mcp-team.ts';
import { initializeRequest, rawMcp } from './raw-mcp.ts';

/**
 * An agent's MCP sessions are capped like its connections. The check and the session's registration are an await
 * apart (the session reads the log's head and the agent's subscriptions first), and initializes sent at once all
 * passed the check.
 */
describe('MCP sessions per agent', () => {
  let h: Harness | undefined;
  afterEach(async () => h?.close());

  it('opens no more than connectionsPerAgent sessions from initializes sent at once', async () => {
    // On Redis: opening a session reads the store, so the openings overlap.
    h = await startHarness('redis', { limits: { connectionsPerAgent: 2 } });
    const { url } = h;
    const endpoint = endpointOf(url, { workspace: 'team', agentId: 'greedy' });
    const answers = await Promise.all(Array.from({ length: 30 }, () => rawMcp(endpoint, initializeRequest)));
    const opened = answers.filter((a) => a.sessionId !== null);
    expect(opened).toHaveLength(2);
    for (const refused of answers.filter((a) => a.sessionId === null))
      expect(refused.text).toMatch(/RESOURCE_EXHAUSTED: Agent greedy already has 2 MCP sessions on this node/);
    // Another agent is not held to greedy's cap.
    const other = await rawMcp(endpointOf(url, { workspace: 'team', agentId: 'other' }), initializeRequest);
    expect(other.sessionId).not.toBeNull();
  });

  it('opens no more than connectionsPerAddress sessions from one address, whatever agents they name', async () => {
    // One address naming a new agent each time used to take every session the node had (10,000 in 9 s).
    h = await startHarness('memory', { limits: { connectionsPerAddress: 3 } });
    const { url } = h;
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        rawMcp(endpointOf(url, { workspace: `ws-${i}`, agentId: `agent-${i}` }), initializeRequest),
      ),
    );
    expect(answers.filter((a) => a.sessionId !== null)).toHaveLength(3);
    for (const refused of answers.filter((a) => a.sessionId === null))
      expect(refused.text).toMatch(/RESOURCE_EXHAUSTED: Address \S+ already has 3 MCP sessions on this node/);
  });
});

/** A tools/call costs the agent's budget by its size, as a socket call does: 1 plus 1 per 16 KiB of its body. */
describe('what an MCP call costs', () => {
  const team = mcpTeam('http');

  it('charges a large call by its body, so the second of two 100 KB calls passes a 12-unit window', async () => {
    team.harness = await startHarness('memory', { limits: { callsPerSecond: 2, rateWindowSeconds: 6 } });
    const agent = await team.join('big-caller');
    const big = () => callRaw(agent, 'getPlanStatus', { plan_id: 'p'.repeat(8), padding: 'x'.repeat(100_000) });
    expect(refusalOf(await big())).not.toMatch(/^RESOURCE_EXHAUSTED/);
    expect(refusalOf(await big())).toMatch(/^RESOURCE_EXHAUSTED: /);
  });
});
