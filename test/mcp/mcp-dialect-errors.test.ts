import { describe, expect, it } from 'vitest';
import { startHarness } from '../helpers/servers.ts';
import { mcpTeam } from './mcp-team.ts';
import { callJson, callRaw, refusalOf, textOf } from './mcp-clients.ts';

const ALL = '000,001,002,003,004';

/**
 * Over MCP the model reads a refusal's text: it is the dialect's own error shape, as the SDK's execute() gives it,
 * so it starts with upstream's message and carries upstream's fields beside it. It used to be `CODE: message` for
 * every dialect, without those fields.
 */
describe("MCP refusals in each dialect's shape", () => {
  const team = mcpTeam('http');

  it('000: { error } with the validation gate’s fields, as text and structuredContent', async () => {
    team.harness = await startHarness('memory', { approvalPolicy: 'auto' });
    const agent = await team.join('gatekeeper', ALL);
    await callJson(agent, 'createPlan', { title: 'V', steps: ['Execute Tier 1 validation'] });
    await callJson(agent, 'startPlan', {});
    const refused = await callRaw(agent, 'setStepStatus', { step_id: 'step_1', status: 'completed' });
    expect(refused.isError).toBe(true);
    const text = JSON.parse(textOf(refused)) as Record<string, unknown>;
    expect(text).toMatchObject({
      error: expect.stringMatching(/^This is a validation step/) as string,
      step_id: 'step_1',
      validation_required: true,
      has_received_outputs: false,
    });
    expect(Object.keys(text)[0]).toBe('error');
    expect(refused.structuredContent).toEqual(text);
    expect(refusalOf(refused)).toMatch(/^FAILED_PRECONDITION: This is a validation step/);
  });

  it('001 { message }, 002 its JSON string with current_goal, 003 a plain string, 004 { ok: false, … }', async () => {
    team.harness = await startHarness('memory', { approvalPolicy: 'auto' });
    const agent = await team.join('polyglot', ALL);

    const todo = await callRaw(agent, 'todo', {});
    expect(JSON.parse(textOf(todo))).toEqual({ message: expect.stringMatching(/^Unknown action: None/) as string });

    await callJson(agent, 'plan_enter', { goal: 'first goal' });
    const twice = await callRaw(agent, 'plan_enter', { goal: 'second goal' });
    expect(twice.isError).toBe(true);
    expect(twice.structuredContent).toBeUndefined();
    expect(JSON.parse(textOf(twice))).toMatchObject({
      error: expect.stringMatching(/^Already in plan mode/) as string,
      current_goal: 'first goal',
    });

    const task = await callRaw(agent, 'TaskGet', { taskId: '9' });
    expect(task.isError).toBe(true);
    expect(textOf(task)).not.toMatch(/^[{A-Z_]+:/);
    expect(textOf(task)).toBe(refusalOf(task).replace(/^NOT_FOUND: /, ''));

    const update = await callRaw(agent, 'update_plan', { plan_id: 'nonexist', step_index: 0 });
    expect(JSON.parse(textOf(update))).toEqual({
      ok: false,
      plan_id: null,
      step_description: null,
      new_status: null,
      error: 'Plan not found: nonexist',
    });
    expect(refusalOf(update)).toBe('NOT_FOUND: Plan not found: nonexist');
  });
});

/** supyagent's runner shows its model `<script>__<function>`: a model driven by it calls these names. */
describe('supyagent’s tool names', () => {
  const team = mcpTeam('http');

  it('are taken for create_plan, update_plan and get_plan over MCP', async () => {
    team.harness = await startHarness('memory');
    const agent = await team.join('supy', '004');
    const created = await callJson<{ ok: boolean; plan_id: string }>(agent, 'plan__create_plan', {
      title: 'Deploy app',
      steps: [{ description: 'Build' }, { description: 'Ship' }],
    });
    expect(created).toMatchObject({ ok: true, title: 'Deploy app', steps_count: 2 });
    expect(await callJson(agent, 'plan__update_plan', { plan_id: created.plan_id, step_index: 0 })).toMatchObject({
      ok: true,
      step_description: 'Build',
      new_status: 'completed',
    });
    const elsewhere = await team.join('not-supy', '000');
    expect(refusalOf(await callRaw(elsewhere, 'plan__get_plan', {}))).toMatch(
      /^NOT_FOUND: Tool "plan__get_plan" is not offered in this session/,
    );
    expect(await callJson(agent, 'plan__get_plan', {})).toMatchObject({
      ok: true,
      plan_id: created.plan_id,
      completed_count: 1,
      total_count: 2,
    });
  });
});
