import { afterEach, describe, expect, it, vi } from 'vitest';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

describe.each(STORE_KINDS)("dialect 000: listSubscriptions' match_count (%s store)", (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('counts the events that matched each subscription since it was made, its own skipped events included', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const main = await h.client('main');
    const worker = await h.client('worker');
    await worker.createPlan({ title: 'Child', steps: ['a', 'b', 'c'] });
    await worker.startPlan({});
    // Before any subscription: not counted.
    await worker.setStepStatus({ step_id: 'step_1', status: 'completed' });

    const any = await main.subscribeToTasks({ event_types: ['step_completed'] });
    const workerOnly = await main.subscribeToTasks({ agent_id: 'worker', event_types: ['step_completed'] });
    await worker.setStepStatus({ step_id: 'step_2', status: 'completed' });
    await main.createPlan({ title: 'Parent', steps: ['x'] });
    await main.startPlan({});
    // main's own event is not pushed back to it, but it matched, as upstream counts it.
    await main.setStepStatus({ step_id: 'step_1', status: 'completed' });

    const listed = await main.listSubscriptions({});
    const byId = Object.fromEntries(listed.subscriptions.map((s) => [s.subscription_id, s]));
    expect(byId[any.subscription_id]).toMatchObject({ match_count: 2, match_count_complete: true });
    expect(byId[workerOnly.subscription_id]).toMatchObject({ match_count: 1, match_count_complete: true });
    const native = (await main.execute('listSubscriptions', {})) as { subscriptions: { match_count: number }[] };
    expect(native.subscriptions.map((s) => s.match_count).sort()).toEqual([1, 2]);
  });

  it('does not count an event from the same millisecond as the subscription, made before it', async () => {
    // Every timestamp is one millisecond (the node reads its clock when it starts): only the log's order tells
    // before from after.
    const clock = vi.spyOn(Date, 'now').mockReturnValue(Date.now());
    try {
      h = await startHarness(store, { approvalPolicy: 'auto' });
      const main = await h.client('main');
      const worker = await h.client('worker');
      await worker.createPlan({ title: 'Child', steps: ['a', 'b'] });
      await worker.startPlan({});
      await worker.setStepStatus({ step_id: 'step_1', status: 'completed' });
      const sub = await main.subscribeToTasks({ agent_id: 'worker', event_types: ['step_completed'] });
      await worker.setStepStatus({ step_id: 'step_2', status: 'completed' });
      const listed = await main.listSubscriptions({});
      expect(listed.subscriptions.find((s) => s.subscription_id === sub.subscription_id)).toMatchObject({
        match_count: 1,
        match_count_complete: true,
      });
    } finally {
      clock.mockRestore();
    }
  });
});
