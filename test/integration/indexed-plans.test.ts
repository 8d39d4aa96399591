import { isPresenceEvent } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { refusal } from '../helpers/refusals.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { SEED_004_DEPLOY, SEED_004_REVIEW } from './catalog-examples.ts';

describe.each(STORE_KINDS)('seed 004 plans by index through the SDK (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('keeps a plan editable after every step ended: a note, then a reopened step reopens the plan', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const { plan_id } = await agent.create_plan({
      title: 'Short',
      steps: [{ description: 'a' }, { description: 'b' }],
    });
    await agent.update_plan({ plan_id, step_index: 0 });
    expect(await agent.update_plan({ plan_id, step_index: 1 })).toMatchObject({ plan_status: 'completed' });
    expect(await agent.update_plan({ plan_id, step_index: 1, notes: 'verified later' })).toMatchObject({
      ok: true,
      new_status: 'completed',
      plan_status: 'completed',
    });
    expect(await agent.update_plan({ plan_id, step_index: 0, status: 'in_progress' })).toMatchObject({
      ok: true,
      new_status: 'in_progress',
      plan_status: 'in_progress',
    });
    const plan = await agent.get_plan({ plan_id });
    expect(plan).toMatchObject({ status: 'in_progress', completed_count: 1, total_count: 2 });
    expect(plan.steps[1]).toMatchObject({ notes: 'verified later' });
    expect(await agent.update_plan({ plan_id, step_index: 0 })).toMatchObject({ plan_status: 'completed' });
  });

  it('runs the seed examples: create, update by index, get with and without an id', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const created = await agent.create_plan(SEED_004_DEPLOY);
    expect(created).toMatchObject({ ok: true, title: 'Deploy to production', steps_count: 6 });
    expect(created.plan_id).toMatch(/^[a-z0-9]{8}$/);
    const { plan_id } = created;

    expect(
      await agent.update_plan({ plan_id, step_index: 0, status: 'completed', notes: 'All 42 tests passed' }),
    ).toEqual({
      ok: true,
      plan_id,
      step_description: 'Run test suite',
      new_status: 'completed',
      error: null,
      plan_status: 'in_progress',
      step_index: 0,
    });
    expect(
      await agent.update_plan({
        plan_id,
        step_index: 1,
        status: 'in_progress',
        notes: 'Docker build started at 14:30',
      }),
    ).toMatchObject({ ok: true, step_description: 'Build Docker image', new_status: 'in_progress' });
    // status defaults to "completed".
    expect(await agent.update_plan({ plan_id, step_index: 1, notes: '' })).toMatchObject({ new_status: 'completed' });
    await agent.update_plan({ plan_id, step_index: 2, status: 'in_progress' });

    const expected = {
      ok: true,
      plan_id,
      title: 'Deploy to production',
      steps: [
        { index: 0, description: 'Run test suite', status: 'completed', notes: 'All 42 tests passed' },
        { index: 1, description: 'Build Docker image', status: 'completed', notes: '' },
        { index: 2, description: 'Push to container registry', status: 'in_progress', notes: '' },
        { index: 3, description: 'Deploy to cluster', status: 'pending', notes: '' },
        { index: 4, description: 'Run smoke tests', status: 'pending', notes: '' },
        { index: 5, description: 'Update documentation', status: 'pending', notes: '' },
      ],
      completed_count: 2,
      total_count: 6,
    };
    expect(await agent.get_plan({ plan_id })).toMatchObject(expected);
    expect(await agent.get_plan({})).toMatchObject(expected);

    expect(
      await agent.update_plan({ plan_id, step_index: 3, status: 'skipped', notes: 'Not needed for this release' }),
    ).toMatchObject({ ok: true, step_description: 'Deploy to cluster', new_status: 'skipped' });

    const types = (await h.server.services.store.readEvents('ws', { count: 100 }))
      .map((e) => e.event_type)
      .filter((t) => !isPresenceEvent(t));
    expect(types).toEqual([
      'plan_created',
      'plan_started',
      'step_completed',
      'step_started',
      'step_completed',
      'step_started',
      'step_skipped',
    ]);
  });

  it('creates the code review checklist with pre-set statuses and notes', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const { plan_id } = await agent.create_plan(SEED_004_REVIEW);
    expect(await agent.get_plan({ plan_id })).toMatchObject({
      steps: [
        { index: 0, status: 'completed', notes: 'Looks good' },
        { index: 1, status: 'in_progress', notes: '' },
        { index: 2, status: 'pending' },
        { index: 3, status: 'pending' },
      ],
      completed_count: 1,
      total_count: 4,
    });
  });

  it("answers the seed's errors with { code, message }", async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const { plan_id } = await agent.create_plan(SEED_004_DEPLOY);
    expect(await refusal(agent.update_plan({ plan_id, step_index: 7 }))).toEqual({
      code: 'INVALID_ARGUMENT',
      message: 'Step index 7 out of range (0-5)',
    });
    expect(await refusal(agent.update_plan({ plan_id: 'zzzz9999', step_index: 0 }))).toEqual({
      code: 'NOT_FOUND',
      message: 'Plan not found: zzzz9999',
    });
    expect(await refusal(agent.get_plan({ plan_id: 'zzzz9999' }))).toEqual({
      code: 'NOT_FOUND',
      message: 'Plan not found: zzzz9999',
    });
    const bad = await refusal(agent.update_plan({ plan_id, step_index: 0, status: 'done' as never }));
    expect(bad.code).toBe('INVALID_ARGUMENT');
    expect(bad.message).toContain('Invalid status "done". Valid statuses: pending, in_progress, completed, skipped.');
    const empty = await agent.create_plan({ title: 'Nothing yet', steps: [] });
    expect((await refusal(agent.update_plan({ plan_id: empty.plan_id, step_index: 0 }))).message).toMatch(
      /has no steps, so there is no step index 0/,
    );
    const other = await h.client('other');
    expect((await refusal(other.update_plan({ plan_id, step_index: 0 }))).code).toBe('PERMISSION_DENIED');
    expect((await refusal(other.get_plan({}))).message).toBe('No plans found. Create one with create_plan.');
  });

  it("answers upstream's probe for index -1 on a two-step plan, on the wire and through execute()", async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const { plan_id } = await agent.create_plan({
      title: 'Two steps',
      steps: [{ description: 'a' }, { description: 'b' }],
    });
    expect(await refusal(agent.update_plan({ plan_id, step_index: -1 }))).toEqual({
      code: 'INVALID_ARGUMENT',
      message: 'Step index -1 out of range (0-1)',
    });
    expect(await agent.execute('update_plan', { plan_id, step_index: -1 })).toEqual({
      ok: false,
      plan_id: null,
      step_description: null,
      new_status: null,
      error: 'Step index -1 out of range (0-1)',
    });
    // On success too, upstream's models carry error: null.
    expect(await agent.update_plan({ plan_id, step_index: 0, status: 'in_progress' })).toMatchObject({ error: null });
    expect(await agent.get_plan({ plan_id })).toMatchObject({ ok: true, error: null });
    expect((await agent.get_plan({ plan_id })).steps.map((s) => s.status)).toEqual(['in_progress', 'pending']);
  });

  it('finds the most recently changed plan, within working_dir when given', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const a = await agent.create_plan({ title: 'A', steps: [{ description: 'a1' }], working_dir: '/repo/a' });
    const b = await agent.create_plan({ title: 'B', steps: [{ description: 'b1' }], working_dir: '/repo/b' });
    const c = await agent.create_plan({ title: 'C', steps: [{ description: 'c1' }, { description: 'c2' }] });
    expect((await agent.get_plan({})).plan_id).toBe(c.plan_id);
    await agent.update_plan({ plan_id: a.plan_id, step_index: 0, status: 'in_progress' });
    expect((await agent.get_plan({})).plan_id).toBe(a.plan_id);
    expect((await agent.get_plan({ working_dir: '/repo/b' })).plan_id).toBe(b.plan_id);
    expect((await agent.get_plan({ working_dir: '.' })).plan_id).toBe(c.plan_id);
    expect((await refusal(agent.get_plan({ working_dir: '/nowhere' }))).code).toBe('NOT_FOUND');
  });

  it('reads working_dir as the folder it names: a trailing slash, "//" or "/./" is the same folder', async () => {
    h = await startHarness(store);
    const planner = await h.client('planner');
    const worker = await h.client('worker');
    const { plan_id } = await planner.create_plan({
      title: 'Shared',
      steps: [{ description: 'Build' }, { description: 'Test' }],
      working_dir: '/srv/repo/',
    });
    for (const dir of ['/srv/repo', '/srv/repo/', '/srv//repo', '/srv/./repo', '/srv/x/../repo'])
      expect((await worker.get_plan({ working_dir: dir })).plan_id, dir).toBe(plan_id);
    expect(await worker.update_plan({ plan_id, step_index: 0, working_dir: '/srv//repo/.' })).toMatchObject({
      ok: true,
      new_status: 'completed',
    });
    expect((await refusal(worker.get_plan({ working_dir: '/srv/repo2' }))).code).toBe('NOT_FOUND');
  });

  it('completes the plan when its last open step ends, and reopens it when a step goes back to pending', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const { plan_id } = await agent.create_plan({ title: 'T', steps: [{ description: 'a' }, { description: 'b' }] });
    await agent.update_plan({ plan_id, step_index: 0 });
    expect(await agent.update_plan({ plan_id, step_index: 1, status: 'skipped' })).toMatchObject({
      plan_status: 'completed',
    });
    expect(await agent.get_plan({ plan_id })).toMatchObject({
      status: 'completed',
      completed_count: 1,
      total_count: 2,
    });
    expect(await agent.update_plan({ plan_id, step_index: 0, status: 'pending' })).toMatchObject({
      new_status: 'pending',
      plan_status: 'in_progress',
    });
  });

  it('respects the steps-per-plan limit with RESOURCE_EXHAUSTED', async () => {
    h = await startHarness(store, { limits: { stepsPerPlan: 5 } });
    const agent = await h.client('main');
    expect((await refusal(agent.create_plan(SEED_004_DEPLOY))).code).toBe('RESOURCE_EXHAUSTED');
  });
});
