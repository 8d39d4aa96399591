import type { CallAck } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { recordEvents, startedPlan } from '../helpers/event-log.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { openAuth, rawClient, type RawClient } from '../security/support/raw-client.ts';

const ok = (ack: CallAck) => {
  if (!ack.ok) throw new Error(`${ack.error.code}: ${ack.error.message}`);
  return ack.result as Record<string, unknown>;
};

/**
 * Coordination without traps (seed 000): a dependency on a step that does not exist yet waits for it, and one on a
 * step that already ended still wakes the waiting agent with step_unblocked; both through the SDK, the raw wire
 * and execute(), on both stores.
 */
describe.each(STORE_KINDS)('spawn-then-depend and already-ended dependencies (%s store)', (store) => {
  let h: Harness;
  const raws: RawClient[] = [];
  afterEach(async () => {
    for (const r of raws.splice(0)) r.close();
    await h.close();
  });
  const start = async (config: Parameters<typeof startHarness>[1] = {}) =>
    (h = await startHarness(store, { approvalPolicy: 'auto', ...config }));
  const raw = async (agentId: string) => {
    const r = await rawClient(h.url, openAuth('ws', agentId));
    raws.push(r);
    return r;
  };

  it('waits on a step of an agent that has no plan yet, and wakes the parent with the output', async () => {
    await start();
    const parent = await h.client('parent');
    const log = recordEvents(parent);
    const waiting = await startedPlan(parent, 'Coordinate', ['Spawn the child']);
    await parent.subscribeToTasks({ event_types: ['step_unblocked'] });
    const dep = await parent.addDependentStep({
      description: 'Merge',
      depends_on: [{ agent_id: 'child', step_id: 'step_3' }],
    });
    expect(dep).toMatchObject({
      status: 'blocked',
      blocked_by: [{ agent_id: 'child', step_id: 'step_3' }],
      message: expect.stringMatching(
        /^Step added with 1 dependencies \(BLOCKED\).*child:step_3 do not exist yet/,
      ) as string,
    });
    expect(dep.blocked_by[0]?.plan_id).toBeUndefined();
    expect((await parent.getBlockedSteps({})).count).toBe(1);

    const child = await h.client('child');
    const childPlan = await startedPlan(child, 'Work', ['one', 'two', 'three']);
    await child.setStepStatus({ step_id: 'step_1', status: 'completed' });
    // Another step of the child ending is not the one waited for.
    await child.setStepStatus({ step_id: 'step_2', status: 'completed' });
    expect((await parent.getPlanStatus({})).steps[1]).toMatchObject({ status: 'blocked' });
    const output = { findings: ['a', 'b'] };
    const done = await child.completeStepWithOutput({ step_id: 'step_3', output });
    expect(done.unblocked).toEqual([{ agent_id: 'parent', plan_id: waiting.plan_id, step_id: dep.step_id }]);

    const woken = await log.next((e) => e.event_type === 'step_unblocked');
    expect(woken).toMatchObject({
      source_agent: 'parent',
      source_plan_id: waiting.plan_id,
      source_step_id: dep.step_id,
      payload: {
        received_outputs: ['child:step_3'],
        outputs: { 'child:step_3': output },
        unblocked_by: { agent_id: 'child', plan_id: childPlan.plan_id, step_id: 'step_3' },
        unblocked_by_agent: 'child',
      },
    });
    expect((await parent.getPlanStatus({})).steps[1]).toMatchObject({
      status: 'pending',
      blocked_by: [],
      received_outputs: { 'child:step_3': output },
    });
    const pending = await h.server.services.store.loadCollections('ws', { sets: ['waiters-pending'] });
    expect(pending.sets[0]).toEqual([]);
  });

  it('matches the step in a plan created later, and in a named plan once the step is added (wire and execute)', async () => {
    await start();
    const parent = await raw('parent');
    const child = await h.client('child');
    await startedPlan(child, 'First', ['only']);
    const other = await h.client('other');
    const later = await startedPlan(other, 'Other', ['x', 'y']);
    ok(await parent.call('createPlan', { title: 'P', steps: ['wait here'] }));
    ok(await parent.call('startPlan', {}));
    // Through the raw wire: the child's current plan has no step_2, so any later plan's step_2 counts.
    const byAgent = ok(
      await parent.call('addDependentStep', {
        step_id: 'step_1',
        depends_on: [{ agent_id: 'child', step_id: 'step_2' }],
      }),
    );
    expect(byAgent).toMatchObject({ status: 'blocked', blocked_by: [{ agent_id: 'child', step_id: 'step_2' }] });
    // Through execute(): a named plan that lacks the step waits for the step to be added to it.
    const executor = await h.client('executor');
    await startedPlan(executor, 'E', ['wait there']);
    const named = await executor.execute('addDependentStep', {
      step_id: 'step_1',
      depends_on: [{ agent_id: 'other', step_id: 'step_3', plan_id: later.plan_id }],
    });
    expect(named).toMatchObject({
      status: 'blocked',
      blocked_by: [{ agent_id: 'other', step_id: 'step_3', plan_id: later.plan_id }],
    });

    await child.completePlan({ status: 'completed', summary: 'first done' });
    const second = await startedPlan(child, 'Second', ['a', 'b']);
    await child.completeStepWithOutput({ step_id: 'step_2', output: { from: 'second' } });
    await other.addStep({ description: 'z' });
    await other.completeStepWithOutput({ step_id: 'step_3', output: { from: 'added' } });

    const parentStep = ok(await parent.call('getPlanStatus', {})).steps as Array<Record<string, unknown>>;
    expect(parentStep[0]).toMatchObject({
      status: 'pending',
      received_outputs: { 'child:step_2': { from: 'second' } },
    });
    expect((await executor.getPlanStatus({})).steps[0]).toMatchObject({
      status: 'pending',
      received_outputs: { 'other:step_3': { from: 'added' } },
    });
    const events = await h.server.services.store.readEvents('ws', { count: 1000 });
    const unblocked = events.filter((e) => e.event_type === 'step_unblocked');
    expect(unblocked.map((e) => [e.source_agent, e.payload.unblocked_by])).toEqual([
      ['parent', { agent_id: 'child', plan_id: second.plan_id, step_id: 'step_2' }],
      ['executor', { agent_id: 'other', plan_id: later.plan_id, step_id: 'step_3' }],
    ]);
  });

  it('announces step_unblocked for a dependency that had already ended, in every form', async () => {
    await start();
    const parent = await h.client('parent');
    const log = recordEvents(parent);
    const child = await h.client('child');
    const childPlan = await startedPlan(child, 'C', ['done', 'failed']);
    await child.completeStepWithOutput({ step_id: 'step_1', output: { v: 1 }, provides: 'first' });
    await child.setStepStatus({ step_id: 'step_2', status: 'failed', error: 'boom' });
    const waiting = await startedPlan(parent, 'P', ['spawn', 'existing']);
    await parent.subscribeToTasks({ event_types: ['step_unblocked'] });

    // SDK, description form: both ended, so the step is ready at once and announced like any unblock.
    const added = await parent.addDependentStep({
      description: 'merge',
      depends_on: [
        { agent_id: 'child', step_id: 'step_1' },
        { agent_id: 'child', step_id: 'step_2' },
      ],
    });
    expect(added).toMatchObject({ status: 'pending', blocked_by: [] });
    const first = await log.next((e) => e.event_type === 'step_unblocked' && e.source_step_id === added.step_id);
    expect(first.payload).toEqual({
      received_outputs: ['child:step_1', 'first', 'child:step_2'],
      outputs: {
        'child:step_1': { v: 1 },
        first: { v: 1 },
        'child:step_2': { status: 'failed', result: null, error: 'boom' },
      },
      unblocked_by: { agent_id: 'child', plan_id: childPlan.plan_id, step_id: 'step_2' },
      unblocked_by_agent: 'child',
    });

    // execute(), existing-step form.
    const viaExecute = await parent.execute('addDependentStep', {
      step_id: 'step_2',
      depends_on: [{ agent_id: 'child', step_id: 'step_1' }],
    });
    expect(viaExecute).toMatchObject({ step_id: 'step_2', status: 'pending' });
    const second = await log.next((e) => e.event_type === 'step_unblocked' && e.source_step_id === 'step_2');
    expect(second).toMatchObject({ source_agent: 'parent', source_plan_id: waiting.plan_id });
    expect(second.payload.outputs).toEqual({ 'child:step_1': { v: 1 }, first: { v: 1 } });

    // The raw wire, from another agent that listens for its own wake-up.
    const other = await raw('other');
    ok(await other.call('createPlan', { title: 'O', steps: ['x'] }));
    ok(await other.call('startPlan', {}));
    ok(await other.call('subscribeToTasks', { event_types: ['step_unblocked'] }));
    const pushed = new Promise<Record<string, unknown>>((resolve) =>
      other.socket.on('event', (e: Record<string, unknown>) => resolve(e)),
    );
    ok(
      await other.call('addDependentStep', {
        step_id: 'step_1',
        depends_on: [{ agent_id: 'child', step_id: 'step_1' }],
      }),
    );
    expect(await pushed).toMatchObject({
      event_type: 'step_unblocked',
      source_agent: 'other',
      source_step_id: 'step_1',
    });
  });

  it('checks cycles over a step that did not exist when it was waited on', async () => {
    await start();
    const parent = await h.client('parent');
    await startedPlan(parent, 'P', ['spawn']);
    await parent.addDependentStep({ description: 'merge', depends_on: [{ agent_id: 'child', step_id: 'step_1' }] });
    const child = await h.client('child');
    await startedPlan(child, 'C', ['work']);
    await expect(
      child.addDependentStep({ step_id: 'step_1', depends_on: [{ agent_id: 'parent', step_id: 'step_2' }] }),
    ).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: expect.stringMatching(/would close a dependency cycle \(.*child:step_1 \(not created yet\)/) as string,
    });
    expect((await child.getPlanStatus({})).steps[0]).toMatchObject({ status: 'pending' });
  });

  it('bounds the waits on steps that do not exist yet, and frees them when the waiting step gives up', async () => {
    const LIMIT = 2;
    await start({ limits: { pendingWaiters: LIMIT } });
    const noisy = await raw('noisy');
    ok(await noisy.call('createPlan', { title: 'N', steps: ['start'] }));
    ok(await noisy.call('startPlan', {}));
    const wait = (i: number) =>
      noisy.call('addDependentStep', {
        description: `w${i}`,
        depends_on: [{ agent_id: `ghost-${i}`, step_id: 'step_1' }],
      });
    for (let i = 0; i < LIMIT; i++) ok(await wait(i));
    const steps = async () => (ok(await noisy.call('getPlanStatus', {})).steps as unknown[]).length;
    const before = await steps();
    const events = (await h.server.services.store.readEvents('ws', { count: 1000 })).length;
    const refused = await wait(LIMIT);
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'RESOURCE_EXHAUSTED', details: { kind: 'pendingWaiters', limit: LIMIT } },
    });
    expect(!refused.ok && refused.error.message).toMatch(/already has 2 steps waiting on steps that do not exist yet/);
    expect(await steps()).toBe(before);
    expect(await h.server.services.store.readEvents('ws', { count: 1000 })).toHaveLength(events);

    const pendingCount = async () =>
      (await h.server.services.store.loadCollections('ws', { sets: ['waiters-pending'] })).sets[0]?.length;
    // Giving up on a waiting step releases its wait: ghost-0 ending later wakes nobody.
    ok(await noisy.call('setStepStatus', { step_id: 'step_2', status: 'skipped', result: 'not needed' }));
    expect(await pendingCount()).toBe(LIMIT - 1);
    ok(await wait(LIMIT));
    for (const id of ['ghost-0', 'ghost-1']) {
      const ghost = await h.client(id);
      await startedPlan(ghost, 'G', ['x']);
      await ghost.setStepStatus({ step_id: 'step_1', status: 'completed' });
    }
    // ghost-1's end resolved its waiter, which left the count.
    expect(await pendingCount()).toBe(LIMIT - 1);
    const status = ok(await noisy.call('getPlanStatus', {})).steps as Array<Record<string, unknown>>;
    expect(status.map((s) => s.status)).toEqual(['pending', 'skipped', 'pending', 'blocked']);
  });
});
