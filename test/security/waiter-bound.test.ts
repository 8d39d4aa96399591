import type { CallAck } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { openAuth, rawClient, type RawClient } from './support/raw-client.ts';

const LIMIT = 3;

const ok = (ack: CallAck) => {
  if (!ack.ok) throw new Error(`${ack.error.code}: ${ack.error.message}`);
  return ack.result as Record<string, unknown>;
};

/** One agent may not attach an unbounded number of waiters to another agent's plan. */
describe.each(STORE_KINDS)('waiters per plan on the %s store', (kind) => {
  let h: Harness;
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await h.close();
  });
  const agent = async (id: string, steps: string[]) => {
    const c = await rawClient(h.url, openAuth('ws', id));
    clients.push(c);
    const plan = ok(await c.call('createPlan', { title: `${id}'s plan`, steps }));
    ok(await c.call('startPlan', {}));
    return { c, planId: plan.plan_id as string };
  };
  const stepCount = async (c: RawClient) => (ok(await c.call('getPlanStatus', {})).steps as unknown[]).length;

  it('refuses the waiter past the limit with nothing written, and counts waiters again once they resolve', async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto', limits: { waitersPerPlan: LIMIT } });
    const target = await agent('target', ['one', 'two']);
    await agent('other', ['solo']);
    const noisy = await agent('noisy', ['start']);
    const on = (agentId: string, stepId: string) => ({ agent_id: agentId, step_id: stepId });

    for (let i = 0; i < LIMIT; i++)
      ok(await noisy.c.call('addDependentStep', { description: `wait ${i}`, depends_on: [on('target', 'step_1')] }));
    const before = await stepCount(noisy.c);
    const events = (await h.server.services.store.readEvents('ws', { count: 1000 })).length;
    const refused = await noisy.c.call('addDependentStep', {
      description: 'one too many',
      depends_on: [on('target', 'step_2')],
    });
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'RESOURCE_EXHAUSTED', details: { kind: 'waitersPerPlan', plan_id: target.planId } },
    });
    expect(!refused.ok && refused.error.message).toMatch(
      new RegExp(`Plan ${target.planId} already has ${LIMIT} waiting steps .* waitersPerPlan \\(${LIMIT}\\)`),
    );
    expect(await stepCount(noisy.c)).toBe(before);
    expect(await h.server.services.store.readEvents('ws', { count: 1000 })).toHaveLength(events);

    // Another plan is counted on its own.
    ok(await noisy.c.call('addDependentStep', { description: 'elsewhere', depends_on: [on('other', 'step_1')] }));

    // The target's step ends: its waiters resolve and leave the count.
    ok(await target.c.call('setStepStatus', { step_id: 'step_1', status: 'completed' }));
    for (let i = 0; i < LIMIT; i++)
      ok(await noisy.c.call('addDependentStep', { description: `again ${i}`, depends_on: [on('target', 'step_2')] }));
    const over = await noisy.c.call('addDependentStep', { step_id: 'step_1', depends_on: [on('target', 'step_2')] });
    expect(over).toMatchObject({ ok: false, error: { code: 'RESOURCE_EXHAUSTED' } });
  });

  it('refuses one call that would attach more waiters than the limit at once', async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto', limits: { waitersPerPlan: LIMIT } });
    const target = await agent('target', ['1', '2', '3', '4']);
    const noisy = await agent('noisy', ['start']);
    const depends_on = ['step_1', 'step_2', 'step_3', 'step_4'].map((step_id) => ({ agent_id: 'target', step_id }));
    const refused = await noisy.c.call('addDependentStep', { description: 'all of them', depends_on });
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'RESOURCE_EXHAUSTED', details: { plan_id: target.planId } },
    });
    expect(await stepCount(noisy.c)).toBe(1);
    ok(await noisy.c.call('addDependentStep', { description: 'three of them', depends_on: depends_on.slice(0, 3) }));
  });
});
