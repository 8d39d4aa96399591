import { afterEach, describe, expect, it } from 'vitest';
import { expectRefusal } from '../helpers/refusals.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { AUTH_PLAN, enterAndPresent } from './plan-mode-support.ts';

/** Seed 002's upstream test cases for plan mode, answered in upstream's words, on the wire and through execute(). */
describe.each(STORE_KINDS)("dialect 002: upstream's own plan mode cases (%s store)", (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it("refuses plan_enter while a plan awaits approval with upstream's words first", async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const presented = await enterAndPresent(agent);
    const err = await expectRefusal(
      agent.plan_enter({ goal: 'Something else' }),
      'FAILED_PRECONDITION',
      /^A plan is awaiting approval\. Approve or reject it before entering plan mode again\./,
    );
    expect(err.message).toContain(presented.plan_id);
    expect(JSON.parse((await agent.execute('plan_enter', { goal: 'Something else' })) as string)).toEqual({
      error: expect.stringMatching(
        /^A plan is awaiting approval\. Approve or reject it before entering plan mode again\./,
      ) as string,
    });
    expect(await agent.plan_status({})).toMatchObject({ mode: 'awaiting_approval', goal: 'Add authentication' });
  });

  it('presents the plan under a plan_ id and an "Implementation Plan:" heading, readable from every dialect', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    await agent.plan_enter({ goal: 'Build X' });
    const presented = await agent.plan_exit({ plan: AUTH_PLAN });
    expect(presented.plan_id).toMatch(/^plan_\d{4}-\d{2}-\d{2}_[a-z0-9]{8}$/);
    expect(presented.markdown).toMatch(/^# Implementation Plan: Build X\n\n\*\*Status:\*\* Pending Approval\n/);
    expect(presented.markdown).toContain(`**Plan ID:** ${presented.plan_id}`);
    expect(presented.message).toContain('Implementation Plan: Build X');
    expect(await agent.plan_status({})).toMatchObject({ mode: 'awaiting_approval', plan_id: presented.plan_id });
    // The id is an ordinary plan id: the other dialects find the plan by it.
    expect(await agent.getPlanStatus({ plan_id: presented.plan_id })).toMatchObject({ plan_id: presented.plan_id });
    expect(await agent.get_plan({ plan_id: presented.plan_id })).toMatchObject({
      ok: true,
      plan_id: presented.plan_id,
    });
  });

  it('answers plan_approve with nothing pending with upstream\'s "No plan awaiting approval"', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    await expectRefusal(agent.plan_approve({}), 'NOT_FOUND', /^No plan awaiting approval, and no modification/);
    await agent.plan_enter({ goal: 'G' });
    await expectRefusal(agent.plan_approve({ modification: false }), 'NOT_FOUND', /^No plan awaiting approval\. /);
    expect(await agent.execute('plan_approve', {})).toMatch(/^\{"error":"No plan awaiting approval/);
    const user = await h.client('alice', { role: 'user' });
    await expectRefusal(
      user.plan_approve({ agent_id: 'main' }),
      'NOT_FOUND',
      /^No plan awaiting approval for agent main/,
    );
    expect(await agent.plan_status({})).toMatchObject({ mode: 'plan' });
  });

  it('applies plan_modify\'s new_files and new_verification on approval, and refuses step 99 as "not found in plan"', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const { plan_id } = await enterAndPresent(agent);
    const user = await h.client('alice', { role: 'user' });
    await user.plan_approve({ plan_id });
    await expectRefusal(
      agent.plan_modify({ step_id: 99, reason: 'r', new_description: 'd' }),
      'NOT_FOUND',
      /^Step 99 not found in plan/,
    );
    expect(await agent.execute('plan_modify', { step_id: 99, reason: 'r', new_description: 'd' })).toMatch(
      /^\{"error":"Step 99 not found in plan/,
    );
    await agent.plan_modify({
      step_id: 1,
      reason: 'The middleware belongs in its own file',
      new_description: 'Create baz.ts instead',
      new_files: ['new_file.ts'],
      new_verification: 'deno task check',
    });
    expect((await user.getPlanStatus({ plan_id })).steps[0]?.description).toBe('Write the token validation middleware');
    const approved = await user.plan_approve({ agent_id: 'main' });
    expect(approved).toMatchObject({
      status: 'modification_approved',
      step_id: 1,
      step: { id: 1, description: 'Create baz.ts instead', files: ['new_file.ts'], verification: 'deno task check' },
    });
    expect((await user.getPlanStatus({ plan_id })).steps[0]?.description).toBe('Create baz.ts instead');
  });

  it("keeps agents' modes apart: A plans while B stays in normal mode with nothing blocked", async () => {
    h = await startHarness(store);
    const a = await h.client('agent-a');
    const b = await h.client('agent-b');
    await a.plan_enter({ goal: 'Refactor the auth module' });
    expect(await a.isToolBlocked('write_file')).toBe(true);
    expect(await b.plan_status({})).toMatchObject({ agent_id: 'agent-b', mode: 'normal', blocked_tools: [] });
    expect(await b.plan_status({})).not.toHaveProperty('goal');
    expect(await b.isToolBlocked('write_file')).toBe(false);
    expect(await b.execute('plan_status', {})).toMatchObject({ mode: 'normal' });
    expect(await a.plan_status({})).toMatchObject({ mode: 'plan', goal: 'Refactor the auth module' });
  });

  it('blocks write_file and cron_create/cron_delete only while exploring in plan mode, as upstream', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const blocked = async () =>
      Object.fromEntries(
        await Promise.all(
          [
            'write_file',
            'cron_create',
            'cron_delete',
            'read_file',
            'run_command',
            'list_directory',
            'search_files',
          ].map(async (name) => [name, await agent.isToolBlocked(name)] as const),
        ),
      );
    const only = (on: boolean) => ({
      write_file: on,
      cron_create: on,
      cron_delete: on,
      read_file: false,
      run_command: false,
      list_directory: false,
      search_files: false,
    });
    expect(await blocked()).toEqual(only(false));
    await agent.plan_enter({ goal: 'G' });
    expect(await blocked()).toEqual(only(true));
    await agent.plan_exit({ plan: AUTH_PLAN });
    expect(await agent.plan_status({})).toMatchObject({ mode: 'awaiting_approval', blocked_tools: [] });
    expect(await blocked()).toEqual(only(false));
    await agent.plan_reject({});
    expect(await blocked()).toEqual(only(false));
  });

  it("refuses plan_enter {} and a plan without summary in upstream's terms, and fills a minimal plan's defaults", async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    expect(await agent.execute('plan_enter', {})).toMatch(
      /^Error: plan_enter requires a 'goal' argument \(string\)\. /,
    );
    await agent.plan_enter({ goal: 'Build X' });
    const noSummary = await agent.execute('plan_exit', {
      plan: { approach: 'a', steps: [{ id: 1, description: 'Create foo.ts' }] },
    });
    expect(noSummary).toMatch(/^Error: plan\.summary is required \(string\)\. /);
    expect(await agent.execute('plan_exit', { plan: { summary: 's', approach: 'a', steps: [] } })).toMatch(
      /^Error: plan\.steps is required \(non-empty array\)\. /,
    );
    const presented = await agent.plan_exit({
      plan: {
        summary: 'Add foo',
        approach: 'Write it',
        steps: [{ id: 1, description: 'Create foo.ts' }],
        // Off upstream's scale: read as medium, not refused.
        estimated_complexity: 'huge' as 'medium',
      },
    });
    expect(presented.plan).toEqual({
      summary: 'Add foo',
      approach: 'Write it',
      steps: [{ id: 1, description: 'Create foo.ts' }],
      alternatives_considered: [],
      risks: [],
      files_to_create: [],
      files_to_modify: [],
      tests_to_write: [],
      estimated_complexity: 'medium',
    });
    expect(presented.markdown).toContain('Pending Approval');
    expect(presented.markdown).toContain('Create foo.ts');
    expect(presented.markdown).toContain('## Estimated Complexity\nmedium');
    expect(presented.markdown).toContain('## Alternatives Considered\n- None considered\n');
    expect(presented.markdown).toContain('## Risks\n- None identified\n');
  });
});
