import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { createServer } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';
import { startedPlan, unblocksOf } from '../helpers/event-log.ts';
import { holdingCommits } from '../helpers/held-commits.ts';
import { storeFixture, type StoreFixtureKind } from '../helpers/stores.ts';
import { rounds } from '../helpers/stress.ts';

const KINDS: readonly StoreFixtureKind[] = ['memory', 'redis', 'redis-cluster', 'file'];
const OUTPUT = { report: 'done' };

/**
 * A parent completes its plan while one of its steps still waits on a subagent's step, and the subagent ends that
 * step at the same moment. Whichever commits first, the step's last word in the log is what every read shows: if the
 * plan ended first, the step stays blocked and no step_unblocked follows; if the unblock came first, the plan's end
 * sees the step pending. Each order is forced by holding one call between its reads and its commit.
 */
describe.each(KINDS)('a plan ending while a step it left open unblocks (%s store)', (kind) => {
  let close: () => Promise<void> = async () => {};
  afterEach(async () => close());

  const start = async () => {
    const fixture = storeFixture(kind);
    const held = holdingCommits(fixture.open());
    const server = createServer(
      { port: 0, logLevel: 'silent', approvalPolicy: 'auto', limits: { callsPerSecond: 100_000 } },
      { store: held.store },
    );
    const { url } = await server.listen();
    const clients: PlanHubClient[] = [];
    const client = async (agentId: string) => {
      const c = await connect({ url, agentId, workspace: 'ws' });
      clients.push(c);
      return c;
    };
    close = async () => {
      for (const c of clients) c.close();
      await server.close();
      await fixture.close();
    };
    return { held, client };
  };

  /** A parent whose step_2 waits on `sub`'s step_1, both plans running. */
  const waitingPair = async (client: (id: string) => Promise<PlanHubClient>, round: number) => {
    const parent = await client(`parent-${round}`);
    const sub = await client(`sub-${round}`);
    const plan = await startedPlan(parent, 'Parent', ['first']);
    await startedPlan(sub, 'Sub', ['work']);
    await parent.addDependentStep({
      description: 'Use the output',
      depends_on: [{ agent_id: `sub-${round}`, step_id: 'step_1' }],
    });
    return { parent, sub, planId: plan.plan_id };
  };

  /** How the plan_completed event (there is exactly one) lists step_2. */
  const step2AtEnd = async (parent: PlanHubClient, planId: string) => {
    const { events } = await parent.getTaskEvents({
      event_types: ['plan_completed'],
      plan_id: planId,
      after_event: '0-0',
      limit: 10,
    });
    expect(events).toHaveLength(1);
    const payload = events[0]?.payload as { unfinished_steps?: { step_id: string; status: string }[] };
    return payload.unfinished_steps?.find((s) => s.step_id === 'step_2');
  };

  it('keeps the step blocked when the plan ended between the completion’s reads and its commit', async () => {
    const { held, client } = await start();
    for (let round = 0; round < rounds(2); round++) {
      const { parent, sub, planId } = await waitingPair(client, round);
      const hold = held.holdNext((c) => (c.fanIns ?? []).length > 0);
      const completion = sub.completeStepWithOutput({ step_id: 'step_1', output: OUTPUT });
      await hold.reached;
      await parent.completePlan({ status: 'completed' });
      hold.release();
      await completion;

      expect(await unblocksOf(parent, planId, 'step_2')).toHaveLength(0);
      expect(await step2AtEnd(parent, planId)).toMatchObject({ status: 'blocked' });
      const status = await parent.getPlanStatus({ plan_id: planId });
      expect(status.steps[1], `round ${round}`).toMatchObject({ id: 'step_2', status: 'blocked' });
    }
  });

  it('shows what a step its ended plan left blocked had received, and what it still waited on', async () => {
    const { client } = await start();
    const parent = await client('parent');
    const sub = await client('sub');
    const plan = await startedPlan(parent, 'Parent', ['first']);
    await startedPlan(sub, 'Sub', ['one', 'two']);
    await parent.addDependentStep({
      description: 'Use both',
      depends_on: [
        { agent_id: 'sub', step_id: 'step_1' },
        { agent_id: 'sub', step_id: 'step_2' },
      ],
    });
    await sub.completeStepWithOutput({ step_id: 'step_1', output: OUTPUT });
    await parent.completePlan({ status: 'completed' });
    const left = (await parent.getPlanStatus({ plan_id: plan.plan_id })).steps[1];
    expect(left).toMatchObject({
      status: 'blocked',
      blocked_by: [expect.objectContaining({ agent_id: 'sub', step_id: 'step_2' })],
      received_outputs: { 'sub:step_1': OUTPUT },
    });
    expect(left?.blocked_by).toHaveLength(1);
    // The other target's end, after the plan's, changes nothing it shows as waiting.
    await sub.completeStepWithOutput({ step_id: 'step_2', output: OUTPUT });
    expect((await parent.getPlanStatus({ plan_id: plan.plan_id })).steps[1]).toMatchObject({ status: 'blocked' });
    expect(await unblocksOf(parent, plan.plan_id, 'step_2')).toHaveLength(0);
  });

  it('ends the plan with the step pending when the unblock committed between the end’s reads and its commit', async () => {
    const { held, client } = await start();
    for (let round = 0; round < rounds(2); round++) {
      const { parent, sub, planId } = await waitingPair(client, round);
      const hold = held.holdNext((c) => c.events.some((e) => e.event_type === 'plan_completed'));
      const end = parent.completePlan({ status: 'completed' });
      await hold.reached;
      await sub.completeStepWithOutput({ step_id: 'step_1', output: OUTPUT });
      hold.release();
      await end;

      expect(await unblocksOf(parent, planId, 'step_2')).toHaveLength(1);
      expect(await step2AtEnd(parent, planId)).toMatchObject({ status: 'pending' });
      const status = await parent.getPlanStatus({ plan_id: planId });
      expect(status.steps[1], `round ${round}`).toMatchObject({
        id: 'step_2',
        status: 'pending',
        received_outputs: { [`sub-${round}:step_1`]: OUTPUT },
      });
    }
  });
});
