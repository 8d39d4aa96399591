import { describe, expect, it } from 'vitest';
import { startHarness } from '../helpers/servers.ts';
import { callJson, mcpClient } from './mcp-clients.ts';
import { mcpTeam } from './mcp-team.ts';

/**
 * An MCP session reads its agent's unfinished plans as it opens (to know whether a decision may come). A corrupt plan
 * document answers INTERNAL to the tools that touch it; it must not keep the agent from opening a session at all.
 */
describe('an MCP session of an agent with a corrupt plan document', () => {
  const team = mcpTeam('http');

  it('opens, serves the tools that do not touch that plan, and names the key in those that do', async () => {
    const h = await startHarness('memory');
    team.harness = h;
    const agent = await h.client('worker');
    const plan = await agent.createPlan({ title: 'P', steps: ['a'] });
    await h.server.services.store.commit('ws', {
      reads: [],
      writes: [{ key: `plan:${plan.plan_id}`, value: { plan_id: plan.plan_id, steps: 'not a list' } }],
      events: [],
    });

    const session = team.adopt(await mcpClient('http', h.url, { workspace: 'ws', agentId: 'worker' }));
    expect(await callJson(session, 'todo', { action: 'list' })).toMatchObject({ status: 'listed' });
    const status = await session.callTool({ name: 'getPlanStatus', arguments: { plan_id: plan.plan_id } });
    expect(status.isError).toBe(true);
    expect(JSON.stringify(status.content)).toContain(`plan:${plan.plan_id}`);
  });
});
