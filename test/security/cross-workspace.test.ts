import type { CallAck, EventEnvelope } from '@planhub/shared';
import { EVENT_TYPES } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { eventLog } from '../helpers/event-log.ts';
import { ok } from './support/fixture.ts';
import type { RawClient } from './support/raw-client.ts';
import { serverFixture } from './support/server-fixture.ts';

/**
 * Two workspaces with the same agent names, spread over two nodes on one Redis: everything one does (events, replays,
 * dependencies, reads) must stay invisible to the other. Absence is checked at a sync point: both workspaces share the
 * one pub/sub channel, so once a watcher has received an event committed after the other workspace's activity, any
 * leaked event of that activity would already have arrived before it.
 */

/** What a raw client's socket receives, recorded in order. */
const watch = (client: RawClient) => ({
  client,
  ...eventLog((listener) => {
    client.socket.on('event', listener);
    return () => void client.socket.off('event', listener);
  }),
});

const result = <T>(ack: CallAck, what: string): T => ok<T>(ack, what);
const code = (ack: CallAck) => (ack.ok ? 'ok' : ack.error.code);

describe('nothing crosses workspaces, across two nodes on one Redis', () => {
  const servers = serverFixture({ approvalPolicy: 'auto', limits: { callsPerSecond: 100_000 } });
  const node = () => servers.node(servers.redis());
  const { join } = servers;

  const subscribeAll = async (client: RawClient, afterEvent?: string) =>
    result<{ replayed: number }>(
      await client.call('subscribeToTasks', {
        agent_id: '*',
        event_types: [...EVENT_TYPES],
        ...(afterEvent ? { after_event: afterEvent } : {}),
      }),
      'subscribeToTasks',
    );

  it('keeps events, replays, dependencies and reads inside their workspace', async () => {
    const [a, b] = [await node(), await node()];
    const ALPHA = 'ALPHA-SECRET-7f3a';

    // Watchers of beta on both nodes (an agent and a dashboard), and one of alpha as the positive control.
    const betaOnA = watch(await join(a, 'beta', 'watcher'));
    const betaDashOnB = watch(await join(b, 'beta', 'wall', 'dashboard'));
    const alphaOnB = watch(await join(b, 'alpha', 'watcher'));
    for (const w of [betaOnA, betaDashOnB, alphaOnB]) await subscribeAll(w.client);

    // Beta: a worker and a waiter that depends on the worker's step_1 (same names exist in alpha).
    const betaWorker = await join(b, 'beta', 'worker');
    const betaWaiter = await join(a, 'beta', 'waiter');
    const betaPlan = result<{ plan_id: string }>(
      await betaWorker.call('createPlan', { title: 'beta work', steps: ['b1', 'b2'] }),
      'beta createPlan',
    ).plan_id;
    await betaWorker.call('startPlan', { wait: false });
    await betaWaiter.call('createPlan', { title: 'beta wait', steps: ['w1'] });
    await betaWaiter.call('startPlan', { wait: false });
    const dependent = result<{ step_id: string; status: string }>(
      await betaWaiter.call('addDependentStep', {
        description: 'after worker step_1',
        depends_on: [{ agent_id: 'worker', step_id: 'step_1' }],
      }),
      'beta addDependentStep',
    );
    expect(dependent.status).toBe('blocked');

    // Alpha, on both nodes: the same agent names, plans, steps, todos, tasks, all carrying the marker.
    const alphaWorker = await join(a, 'alpha', 'worker');
    const alphaUser = await join(b, 'alpha', 'alice', 'user');
    const alphaPlan = result<{ plan_id: string }>(
      await alphaWorker.call('createPlan', { title: `alpha ${ALPHA}`, steps: [`one ${ALPHA}`, 'two'] }),
      'alpha createPlan',
    ).plan_id;
    await alphaWorker.call('startPlan', { wait: false });
    await alphaWorker.call('completeStepWithOutput', { step_id: 'step_1', output: { secret: ALPHA } });
    await alphaWorker.call('todo_write', { todos: [{ id: 't', content: ALPHA, status: 'pending', priority: 'high' }] });
    await alphaUser.call('TaskCreate', { subject: `task ${ALPHA}`, description: ALPHA });
    const alphaLast = await alphaOnB.next((e) => e.event_type === 'task_created');

    // Alpha's worker finishing step_1 did not wake beta's waiter, which waits on beta's worker.
    const waiting = result<{ steps: Array<{ step_id: string; status: string }> }>(
      await betaWaiter.call('getPlanStatus', {}),
      'beta getPlanStatus',
    );
    expect(waiting.steps.find((s) => s.step_id === dependent.step_id)?.status).toBe('blocked');

    // Sync point: a beta event committed after all of alpha's activity.
    await betaWorker.call('completeStepWithOutput', { step_id: 'step_1', output: { beta: true } });
    for (const w of [betaOnA, betaDashOnB]) {
      await w.next((e) => e.event_type === 'step_unblocked' && e.source_agent === 'waiter');
      expect(w.events.length).toBeGreaterThan(0);
      expect(w.events.every((e) => e.workspace === 'beta')).toBe(true);
      expect(JSON.stringify(w.events)).not.toContain(ALPHA);
    }
    expect(alphaOnB.events.every((e) => e.workspace === 'alpha')).toBe(true);
    expect(JSON.stringify(alphaOnB.events)).toContain(ALPHA);

    // Replays: resuming after an alpha event id (ids are positions in each workspace's own log), or from the start,
    // replays beta history only.
    for (const after of [alphaLast.event_id, '0-0']) {
      const resumed = watch(await join(after === '0-0' ? a : b, 'beta', `resumer-${after === '0-0' ? 0 : 1}`));
      const { replayed } = await subscribeAll(resumed.client, after);
      expect(resumed.events).toHaveLength(replayed);
      expect(resumed.events.every((e) => e.workspace === 'beta')).toBe(true);
      expect(JSON.stringify(resumed.events)).not.toContain(ALPHA);
    }
    const polled = result<{ events: EventEnvelope[] }>(
      await betaWaiter.call('getTaskEvents', { limit: 500, after_event: '0-0' }),
      'getTaskEvents',
    );
    expect(polled.events.length).toBeGreaterThan(0);
    expect(polled.events.every((e) => e.workspace === 'beta')).toBe(true);
    expect(JSON.stringify(polled)).not.toContain(ALPHA);

    // A dependency on alpha's plan is not found from beta.
    expect(
      code(
        await betaWaiter.call('addDependentStep', {
          description: 'x',
          depends_on: [{ agent_id: 'worker', step_id: 'step_2', plan_id: alphaPlan }],
        }),
      ),
    ).toBe('NOT_FOUND');
    // An agent beta has not seen yet is one it may still spawn: the step waits for beta's alice, whatever alpha's
    // alice has done.
    const future = await betaWaiter.call('addDependentStep', {
      description: 'x',
      depends_on: [{ agent_id: 'alice', step_id: 'step_1' }],
    });
    expect(future.ok ? future.result : future.error).toMatchObject({ status: 'blocked' });

    // Reads by id or by name never reach alpha.
    const betaUser = await join(a, 'beta', 'alice', 'user');
    expect(code(await betaUser.call('getPlanStatus', { plan_id: alphaPlan }))).toBe('NOT_FOUND');
    expect(code(await betaUser.call('get_plan', { plan_id: alphaPlan }))).toBe('NOT_FOUND');
    expect(code(await betaUser.call('plan_approve', { plan_id: alphaPlan }))).toBe('NOT_FOUND');
    const reads = await Promise.all([
      betaUser.call('getWorkspace', {}),
      betaUser.call('TaskList', {}),
      betaUser.call('todo_read', { agent_id: 'worker' }),
      betaUser.call('getPlanStatus', { agent_id: 'worker' }),
      betaUser.call('plan_status', { agent_id: 'worker' }),
      betaUser.call('todoReminder', { agent_id: 'worker' }),
    ]);
    for (const ack of reads) expect(JSON.stringify(ack)).not.toContain(ALPHA);
    expect(result<{ plan_id: string }>(reads[3], 'getPlanStatus').plan_id).toBe(betaPlan);
  });
});
