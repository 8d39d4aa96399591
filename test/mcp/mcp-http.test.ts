import { describe, expect, it } from 'vitest';
import { STORE_KINDS, startHarness } from '../helpers/servers.ts';
import { runFanIn } from './fan-in.ts';
import { mcpTeam } from './mcp-team.ts';
import { callJson, callRaw, refusalOf, textOf } from './mcp-clients.ts';

describe.each(STORE_KINDS)('MCP over Streamable HTTP (%s store)', (store) => {
  const team = mcpTeam('http');
  const join = team.join;

  it('runs a parent and two subagents, one MCP session each, through a full fan-in', async () => {
    team.harness = await startHarness(store, { approvalPolicy: 'auto' });
    const parent = await join('parent');
    await runFanIn(parent, await join('sub-a'), await join('sub-b'), { a: 'sub-a', b: 'sub-b' });
  });

  it('lists the dialects a session asks for, plus waitForEvents', async () => {
    team.harness = await startHarness(store);
    const client = await join('picky', '000,004');
    const { tools } = await client.listTools();
    const dialectOf = new Map(
      (await callJson<{ name: string; dialect: string }[]>(await join('all'), 'listTools', {})).map((t) => [
        t.name,
        t.dialect,
      ]),
    );
    expect(new Set(tools.filter((t) => t.name !== 'waitForEvents').map((t) => dialectOf.get(t.name)))).toEqual(
      new Set(['000', '004']),
    );
    expect(tools.map((t) => t.name)).toContain('waitForEvents');
    const refused = await callRaw(client, 'todo_write', { todos: [] });
    expect(refused.isError).toBe(true);
    expect(refusalOf(refused)).toMatch(/^NOT_FOUND: .*not offered in this session/);
    expect(JSON.parse(textOf(refused))).toEqual({
      error: expect.stringMatching(/^Tool "todo_write" is not offered/) as string,
    });
  });

  it('answers startPlan at once with awaiting_approval and hands the decision to waitForEvents', async () => {
    const h = (team.harness = await startHarness(store));
    const agent = await join('planner');
    const { plan_id } = await callJson<{ plan_id: string }>(agent, 'createPlan', { title: 'Plan', steps: ['one'] });
    const started = await callJson<{ status: string; next: string }>(agent, 'startPlan', {});
    expect(started).toMatchObject({
      plan_id,
      status: 'awaiting_approval',
      next: expect.stringMatching(/waitForEvents/) as string,
    });
    const user = await h.client('alice', { role: 'user', workspace: 'team' });
    await user.plan_approve({ plan_id });
    const { events } = await callJson<{ events: { event_type: string; source_plan_id: string }[] }>(
      agent,
      'waitForEvents',
      { timeout: 30 },
    );
    expect(events).toEqual([expect.objectContaining({ event_type: 'plan_approved', source_plan_id: plan_id })]);
  });

  it("turns a refused call into an isError result in the dialect's shape, its code in _meta", async () => {
    team.harness = await startHarness(store);
    const agent = await join('clumsy');
    const result = await callRaw(agent, 'setStepStatus', { step_id: 'step_1', status: 'done' });
    expect(result.isError).toBe(true);
    const text = JSON.parse(textOf(result)) as { error: string };
    expect(text.error).toMatch(/^Invalid status: done\. Must be one of: .*setStepStatus/);
    expect(result.structuredContent).toEqual(text);
    expect(refusalOf(result)).toBe(`INVALID_ARGUMENT: ${text.error}`);
  });

  it('serves object input schemas from the catalog, with request_id on mutating tools, and honours it', async () => {
    team.harness = await startHarness(store);
    const agent = await join('careful');
    const { tools } = await agent.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    // Flat at the root, as model APIs take it (Anthropic's refuses a root anyOf), with the forms in the description.
    const union = byName.get('addDependentStep');
    expect(union?.inputSchema).not.toHaveProperty('anyOf');
    expect(union?.inputSchema).toMatchObject({ type: 'object', required: ['depends_on'] });
    expect(Object.keys(union?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['description', 'step_id', 'depends_on', 'request_id']),
    );
    expect(union?.description).toMatch(/Accepted argument forms \(required fields\): \{description, depends_on\} or/);
    expect(byName.get('createPlan')?.inputSchema.properties).toHaveProperty('request_id');
    expect(byName.get('getPlanStatus')?.inputSchema.properties).not.toHaveProperty('request_id');
    expect(byName.get('getPlanStatus')?.annotations?.readOnlyHint).toBe(true);

    const args = { title: 'Once', steps: ['s'], request_id: 'req-1' };
    const first = await callJson<{ plan_id: string }>(agent, 'createPlan', args);
    const retry = await callJson<{ plan_id: string }>(agent, 'createPlan', args);
    expect(retry.plan_id).toBe(first.plan_id);
  });
});
