import { afterEach, describe, expect, it } from 'vitest';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

/**
 * Upstream's update_plan takes `notes=None` as "leave the notes as they are" and `notes=""` as "clear them"; hosts
 * that send every parameter send the None as null, so PlanHub accepts it with the same meaning.
 */
describe.each(STORE_KINDS)('update_plan notes (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('keeps the notes when notes is null, and clears them when notes is empty', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const { plan_id } = await agent.create_plan({
      title: 'Notes',
      steps: [{ description: 'a', notes: 'first look' }, { description: 'b' }],
    });

    expect(await agent.update_plan({ plan_id, step_index: 0, status: 'in_progress', notes: null })).toMatchObject({
      ok: true,
      new_status: 'in_progress',
    });
    expect((await agent.get_plan({ plan_id })).steps[0]).toMatchObject({ status: 'in_progress', notes: 'first look' });

    await agent.update_plan({ plan_id, step_index: 0, status: 'in_progress', notes: '' });
    expect((await agent.get_plan({ plan_id })).steps[0]).toMatchObject({ status: 'in_progress', notes: '' });
  });

  it('takes an empty title and an empty step description, as upstream’s plain strings do', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const created = await agent.create_plan({ title: '', steps: [{ description: '' }, { description: 'b' }] });
    expect(created).toMatchObject({ ok: true, title: '', steps_count: 2 });
    const read = await agent.get_plan({ plan_id: created.plan_id });
    expect(read).toMatchObject({
      title: '',
      steps: [
        { index: 0, description: '' },
        { index: 1, description: 'b' },
      ],
    });
  });
});
