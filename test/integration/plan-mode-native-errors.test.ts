import type { PlanHubClient } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { expectRefusal } from '../helpers/refusals.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { enterAndPresent } from './plan-mode-support.ts';

/** What execute() hands the model, read as upstream's host reads a state refusal: `JSON.parse(result)`. */
const parsed = async (agent: PlanHubClient, tool: string, args: object) => {
  const answer = await agent.execute(tool, args);
  expect(typeof answer, `${tool} answers a string`).toBe('string');
  return JSON.parse(answer as string) as Record<string, unknown>;
};

/** The text execute() answers for an argument refusal: upstream's "Error: …" string. */
const refused = async (agent: PlanHubClient, tool: string, args: object) => String(await agent.execute(tool, args));

/**
 * Seed 002's refusals in upstream's two shapes: a refusal of the agent's state is a JSON object with upstream's fields
 * (`{"error":"No active plan"}`), an argument refusal is "Error: <upstream's text>".
 */
describe.each(STORE_KINDS)('dialect 002: refusals in the shapes upstream answers (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('answers state refusals as JSON objects, with current_goal beside "Already in plan mode"', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    expect(await parsed(agent, 'plan_step_complete', { step_id: 1, verification_result: 'ok' })).toEqual({
      error: expect.stringMatching(/^No active plan/) as string,
    });
    expect(await parsed(agent, 'plan_complete', { summary: 'Done' })).toEqual({
      error: expect.stringMatching(/^No active plan/) as string,
    });
    expect(await parsed(agent, 'plan_approve', {})).toEqual({
      error: expect.stringMatching(/^No plan awaiting approval/) as string,
    });
    await agent.plan_enter({ goal: 'First goal' });
    expect(await parsed(agent, 'plan_enter', { goal: 'Second goal' })).toEqual({
      error: expect.stringMatching(/^Already in plan mode/) as string,
      current_goal: 'First goal',
    });
    // On the wire the fields travel in details.native.
    const err = await expectRefusal(agent.plan_enter({ goal: 'Second goal' }), 'FAILED_PRECONDITION');
    expect(err.details).toEqual({ native: { current_goal: 'First goal' } });
  });

  it("answers duplicate and unknown steps of the approved plan as upstream's JSON errors", async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    await enterAndPresent(agent);
    await agent.plan_approve({});
    await agent.plan_step_complete({ step_id: 1, verification_result: 'ok' });
    expect(await parsed(agent, 'plan_step_complete', { step_id: 1, verification_result: 'ok' })).toEqual({
      error: expect.stringMatching(/^Step 1 already completed/) as string,
    });
    expect(await parsed(agent, 'plan_step_complete', { step_id: 99, verification_result: 'ok' })).toEqual({
      error: expect.stringMatching(/^Step 99 not found in plan/) as string,
    });
    expect(await parsed(agent, 'plan_modify', { step_id: 99, reason: 'r', new_description: 'd' })).toEqual({
      error: expect.stringMatching(/^Step 99 not found in plan/) as string,
    });
  });

  it("keeps upstream's Error: strings for plan_exit outside plan mode and for arguments, in upstream's words", async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const step = { id: 1, description: 'd' };
    expect(await refused(agent, 'plan_exit', { plan: { summary: 's', approach: 'a', steps: [step] } })).toBe(
      'Error: Not in plan mode. Call plan_enter first.',
    );
    await agent.plan_enter({ goal: 'Build X' });
    const texts: [string, object, string][] = [
      ['plan_enter', { goal: '' }, "plan_enter requires a 'goal' argument (string)."],
      ['plan_exit', {}, "plan_exit requires a 'plan' argument (object)."],
      ['plan_exit', { plan: { summary: 's', steps: [step] } }, 'plan.approach is required (string).'],
      ['plan_exit', { plan: { summary: 's', approach: 'a' } }, 'plan.steps is required (non-empty array).'],
      ['plan_exit', { plan: { summary: 's', approach: 'a', steps: ['one'] } }, 'Each step must be an object.'],
      [
        'plan_exit',
        { plan: { summary: 's', approach: 'a', steps: [{ description: 'd' }] } },
        "Each step requires 'id' (number).",
      ],
      [
        'plan_exit',
        { plan: { summary: 's', approach: 'a', steps: [{ id: 1 }] } },
        "Each step requires 'description' (string).",
      ],
      ['plan_step_complete', {}, "plan_step_complete requires a 'step_id' argument (number)."],
      ['plan_step_complete', { step_id: 1 }, "plan_step_complete requires a 'verification_result' argument (string)."],
      ['plan_complete', {}, "plan_complete requires a 'summary' argument (string)."],
      ['plan_modify', { reason: 'r', new_description: 'd' }, "plan_modify requires 'step_id' (number)."],
      ['plan_modify', { step_id: 1, new_description: 'd' }, "plan_modify requires 'reason' (string)."],
      ['plan_modify', { step_id: 1, reason: 'r' }, "plan_modify requires 'new_description' (string)."],
    ];
    for (const [tool, args, text] of texts) {
      const answer = await refused(agent, tool, args);
      expect(answer.startsWith(`Error: ${text} `), `${tool} ${JSON.stringify(args)}: ${answer}`).toBe(true);
    }
    await expectRefusal(
      agent.call('plan_step_complete', {} as never),
      'INVALID_ARGUMENT',
      /^plan_step_complete requires/,
    );
    expect(await agent.plan_status({})).toMatchObject({ mode: 'plan' });
  });
});
