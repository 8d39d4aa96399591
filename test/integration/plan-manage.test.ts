import { afterEach, describe, expect, it } from 'vitest';
import { mcpClient } from '../mcp/mcp-clients.ts';
import { expectRefusal } from '../helpers/refusals.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { AUTH_PLAN } from './plan-mode-support.ts';

const VALID = 'Valid actions: enter, exit, approve, reject, complete, modify';

/** Seed 002 as Triggerfish ships it since 2026-03-05: plan_manage(action) next to plan_step_complete and plan_status. */
describe.each(STORE_KINDS)("dialect 002: upstream's plan_manage(action) (%s store)", (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('runs plan mode from enter to complete through plan_manage, answering what the seed tools answer', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    expect(await agent.plan_manage({ action: 'enter', goal: 'Add authentication', scope: 'src/' })).toMatchObject({
      status: 'entered',
      mode: 'plan',
      goal: 'Add authentication',
      scope: 'src/',
      blocked_tools: ['write_file', 'cron_create', 'cron_delete'],
    });
    const presented = await agent.execute('plan_manage', { action: 'exit', plan: AUTH_PLAN });
    expect(presented).toMatchObject({ status: 'plan_presented', mode: 'awaiting_approval', awaiting_approval: true });
    const { plan_id } = presented as { plan_id: string };
    expect(plan_id).toMatch(/^plan_\d{4}-\d{2}-\d{2}_/);
    expect(await agent.plan_manage({ action: 'approve' })).toMatchObject({ status: 'approved', plan_id });
    expect(await agent.plan_status({})).toMatchObject({ mode: 'executing', active_plan_id: plan_id });
    await agent.plan_step_complete({ step_id: 1, verification_result: 'npm test auth: 4 passed' });
    expect(
      await agent.plan_manage({ action: 'modify', step_id: 2, reason: 'Two route files', new_description: 'Both' }),
    ).toMatchObject({ status: 'modification_requested', plan_id, step_id: 2, new_description: 'Both' });
    expect(await agent.plan_manage({ action: 'approve', modification: true })).toMatchObject({
      status: 'modification_approved',
      step: { id: 2, description: 'Both' },
    });
    expect(
      await agent.plan_manage({ action: 'complete', summary: 'Auth on step 1', deviations: ['Steps 2, 3 moved out'] }),
    ).toMatchObject({ status: 'plan_completed', plan_id, summary: 'Auth on step 1', mode: 'normal' });
    expect(await agent.plan_status({})).toMatchObject({ mode: 'normal' });
  });

  it('leaves plan mode with action "reject" as plan_reject does', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    await agent.plan_manage({ action: 'enter', goal: 'G' });
    const { plan_id } = await agent.plan_exit({ plan: AUTH_PLAN });
    expect(await agent.plan_manage({ action: 'reject', reason: 'Too big' })).toMatchObject({
      status: 'rejected',
      plan_id,
      mode: 'normal',
    });
    expect(await agent.plan_manage({ action: 'reject' })).toMatchObject({ status: 'rejected', mode: 'normal' });
  });

  it("names an unknown action and a missing one in upstream's words, on the wire and through execute()", async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const call = (args: object) => agent.call('plan_manage', args as never);
    await expectRefusal(
      call({ action: 'frobnicate' }),
      'INVALID_ARGUMENT',
      new RegExp(`^unknown action "frobnicate" for plan_manage\\. ${VALID}\\. `),
    );
    expect(await agent.execute('plan_manage', { action: 'frobnicate' })).toMatch(
      new RegExp(`^Error: unknown action "frobnicate" for plan_manage\\. ${VALID}`),
    );
    for (const args of [{}, { action: '' }, { action: 7 }])
      expect(await agent.execute('plan_manage', args)).toMatch(
        /^Error: plan_manage requires an 'action' parameter \(string\)\. /,
      );
    expect(await agent.plan_status({})).toMatchObject({ mode: 'normal' });
  });

  it("refuses an action without its arguments in upstream's words", async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const refusals: [object, string][] = [
      [{ action: 'enter' }, "plan_manage(action: 'enter') requires a 'goal' argument (string)."],
      [{ action: 'enter', goal: '' }, "plan_manage(action: 'enter') requires a 'goal' argument (string)."],
      [{ action: 'exit' }, "plan_manage(action: 'exit') requires a 'plan' argument (object)."],
      [{ action: 'exit', plan: { approach: 'a', steps: [] } }, 'plan.summary is required (string).'],
      [
        { action: 'exit', plan: { summary: 's', approach: 'a', steps: [] } },
        'plan.steps is required (non-empty array).',
      ],
      [{ action: 'complete' }, "plan_manage(action: 'complete') requires a 'summary' argument (string)."],
      [
        { action: 'modify', reason: 'r', new_description: 'd' },
        "plan_manage(action: 'modify') requires 'step_id' (number).",
      ],
      [
        { action: 'modify', step_id: 1, new_description: 'd' },
        "plan_manage(action: 'modify') requires 'reason' (string).",
      ],
      [
        { action: 'modify', step_id: 1, reason: 'r' },
        "plan_manage(action: 'modify') requires 'new_description' (string).",
      ],
    ];
    for (const [args, text] of refusals) {
      const answer = await agent.execute('plan_manage', args);
      expect(
        typeof answer === 'string' && answer.startsWith(`Error: ${text} `),
        `${JSON.stringify(args)}: ${String(answer)}`,
      ).toBe(true);
    }
  });

  it("answers an action's state refusals as the seed tool does: upstream's JSON through execute()", async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    expect(JSON.parse((await agent.execute('plan_manage', { action: 'approve' })) as string)).toEqual({
      error: expect.stringMatching(/^No plan awaiting approval/) as string,
    });
    expect(JSON.parse((await agent.execute('plan_manage', { action: 'complete', summary: 's' })) as string)).toEqual({
      error: expect.stringMatching(/^No active plan/) as string,
    });
    await agent.plan_manage({ action: 'enter', goal: 'First goal' });
    expect(JSON.parse((await agent.execute('plan_manage', { action: 'enter', goal: 'Second' })) as string)).toEqual({
      error: expect.stringMatching(/^Already in plan mode/) as string,
      current_goal: 'First goal',
    });
  });
});

describe('dialect 002: plan_manage over MCP', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('is listed for a session offered dialect 002, and runs there', async () => {
    h = await startHarness('memory');
    const client = await mcpClient('http', h.url, { workspace: 'mcp', agentId: 'main', dialects: '002' });
    try {
      const { tools } = await client.listTools();
      const manage = tools.find((t) => t.name === 'plan_manage');
      expect(manage?.inputSchema).toMatchObject({
        type: 'object',
        required: ['action'],
        properties: { action: { enum: ['enter', 'exit', 'approve', 'reject', 'complete', 'modify'] } },
      });
      const result = await client.callTool({ name: 'plan_manage', arguments: { action: 'enter', goal: 'Over MCP' } });
      expect(result.structuredContent).toMatchObject({ status: 'entered', mode: 'plan', goal: 'Over MCP' });
    } finally {
      await client.close();
    }
  });
});
