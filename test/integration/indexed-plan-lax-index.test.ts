import { afterEach, describe, expect, it } from 'vitest';
import { expectRefusal } from '../helpers/refusals.ts';
import { startHarness, type Harness } from '../helpers/servers.ts';

/**
 * Upstream's update_plan reads step_index with pydantic's lax `int`, which also takes a string of a decimal integer
 * ("1", " 2 ", "1.0") and a boolean. A model that quotes the index is served there, so it is served here.
 */
describe('update_plan step_index as upstream reads it', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('takes a string of an integer and a boolean as the index, and refuses a fraction or a word', async () => {
    h = await startHarness('memory');
    const agent = await h.client('main');
    const { plan_id } = await agent.create_plan({
      title: 'Quoted indexes',
      steps: [{ description: 'zero' }, { description: 'one' }, { description: 'two' }],
    });
    const update = (step_index: unknown, status: string) =>
      agent.call('update_plan', { plan_id, step_index, status } as never);

    expect(await update('0', 'in_progress')).toMatchObject({ ok: true, step_description: 'zero' });
    expect(await update(' 2 ', 'skipped')).toMatchObject({ ok: true, step_description: 'two' });
    expect(await update('1.0', 'in_progress')).toMatchObject({ ok: true, step_description: 'one' });
    expect(await update(true, 'completed')).toMatchObject({ ok: true, step_description: 'one' });
    expect(await update(false, 'completed')).toMatchObject({ ok: true, step_description: 'zero' });
    // Past the end, a quoted index reads as upstream's integer in the refusal.
    await expectRefusal(update('7', 'completed'), undefined, 'Step index 7 out of range (0-2)');

    await expectRefusal(
      update('1.5', 'completed'),
      'INVALID_ARGUMENT',
      'Expected an integer such as 2, received "1.5"',
    );
    await expectRefusal(update('one', 'completed'), 'INVALID_ARGUMENT', 'received "one"');
    await expectRefusal(update(1.5, 'completed'), 'INVALID_ARGUMENT', 'Expected an integer such as 2, received 1.5');

    const plan = await agent.get_plan({ plan_id });
    expect(plan.steps.map((s) => s.status)).toEqual(['completed', 'completed', 'skipped']);
  });
});
