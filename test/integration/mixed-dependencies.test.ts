import { afterEach, describe, expect, it } from 'vitest';
import { startedPlan } from '../helpers/event-log.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { rounds } from '../helpers/stress.ts';

describe.each(STORE_KINDS)('a step waiting on its own plan and on another agent (%s store)', (kind) => {
  let h: Harness;
  afterEach(async () => h.close());

  const ROUNDS = rounds(15);
  it(`announces its unblock exactly once when both end at the same moment (${ROUNDS} rounds)`, async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto', limits: { callsPerSecond: 100_000 } });
    const parent = await h.client('parent');
    const sub = await h.client('sub');
    for (let round = 0; round < ROUNDS; round++) {
      const own = await startedPlan(parent, `P${round}`, ['first', 'waits']);
      await startedPlan(sub, `S${round}`, ['work']);
      await parent.addDependentStep({
        step_id: 'step_2',
        depends_on: [
          { agent_id: 'parent', step_id: 'step_1', plan_id: own.plan_id },
          { agent_id: 'sub', step_id: 'step_1' },
        ],
      });
      const [, theirs] = await Promise.all([
        parent.setStepStatus({ step_id: 'step_1', status: 'completed' }),
        sub.completeStepWithOutput({ step_id: 'step_1', output: { round } }),
      ]);
      // Both commits are in the log once both calls are answered.
      const unblocks = (await h.server.services.store.readEvents('ws', { count: 10_000 })).filter(
        (e) => e.event_type === 'step_unblocked' && e.source_plan_id === own.plan_id,
      );
      expect(unblocks).toHaveLength(1);
      expect(unblocks[0]?.payload.received_outputs).toEqual(['parent:step_1', 'sub:step_1']);
      // setStepStatus does not list what it unblocked; completeStepWithOutput does, when it was the last.
      expect(theirs.unblocked.length).toBeLessThanOrEqual(1);
      expect((await parent.getPlanStatus({ plan_id: own.plan_id })).steps[1]).toMatchObject({
        status: 'pending',
        blocked_by: [],
      });
      await parent.setStepStatus({ step_id: 'step_2', status: 'completed' });
      await parent.completePlan({ status: 'completed' });
      await sub.completePlan({ status: 'completed' });
    }
  });
});
