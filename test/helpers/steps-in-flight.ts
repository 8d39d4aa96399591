import type { PlanHubClient } from '@planhub/client-sdk';
import { expect } from 'vitest';
import { recordEvents, startedPlan } from './event-log.ts';
import type { WritersSite } from './concurrent-writers.ts';
import { rounds } from './stress.ts';

const OWNERS = 4;
const IN_FLIGHT = 10;

/**
 * Each of OWNERS subagents completes every step of its own plan (`steps`, 20 rounds by default) with IN_FLIGHT calls
 * at once (distinct steps, half of them without plan_id), while a parent step waits on all of one subagent's steps
 * (a fan-in fed by one plan). Step changes write only their step, so not one commit conflicts, nothing is refused
 * and nothing is lost.
 */
export const runStepsInFlight = async (
  site: WritersSite,
  { steps = rounds(20) }: { steps?: number } = {},
): Promise<void> => {
  let index = 0;
  const connect = (id: string) => site.client(id, index++);
  const parent = await connect('parent');
  const owners: PlanHubClient[] = await Promise.all(Array.from({ length: OWNERS }, (_, i) => connect(`owner-${i}`)));
  const names = Array.from({ length: steps }, (_, j) => `work ${j + 1}`);
  const plans = await Promise.all(owners.map((owner, i) => startedPlan(owner, `Owner ${i}`, names)));
  const parentPlan = await startedPlan(parent, 'Parent', ['gather']);
  await parent.addDependentStep({
    step_id: 'step_1',
    depends_on: names.map((_, j) => ({ agent_id: 'owner-0', step_id: `step_${j + 1}` })),
  });
  const log = recordEvents(parent);
  await parent.subscribeToTasks({ event_types: ['step_unblocked'] });

  const before = await site.conflicts();
  const unblocked: unknown[] = [];
  await Promise.all(
    owners.map(async (owner, i) => {
      let next = 0;
      const lane = async () => {
        for (let j = next++; j < steps; j = next++) {
          const answer = await owner.completeStepWithOutput({
            ...(j % 2 === 0 ? { plan_id: plans[i]?.plan_id } : {}),
            step_id: `step_${j + 1}`,
            output: { owner: i, step: j + 1 },
          });
          unblocked.push(...answer.unblocked);
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
    }),
  );
  expect(await site.conflicts()).toBe(before);

  // Exactly one completion reported the unblock, and one event carried every output.
  expect(unblocked).toEqual([{ agent_id: 'parent', plan_id: parentPlan.plan_id, step_id: 'step_1' }]);
  const event = await log.next((e) => e.event_type === 'step_unblocked');
  expect(event.payload.received_outputs).toEqual(names.map((_, j) => `owner-0:step_${j + 1}`).sort());
  expect(log.of('step_unblocked')).toHaveLength(1);
  // No lost update: every step of every plan completed with its own output.
  for (const [i, owner] of owners.entries()) {
    const status = await owner.getPlanStatus({ plan_id: plans[i]?.plan_id });
    expect(status.progress).toMatchObject({ completed: steps, total: steps });
    for (const [j, step] of status.steps.entries())
      expect(step).toMatchObject({ status: 'completed', output: { owner: i, step: j + 1 } });
  }
  const gathered = await parent.getPlanStatus({ plan_id: parentPlan.plan_id });
  expect(gathered.steps[0]).toMatchObject({ status: 'pending', blocked_by: [] });
  expect(Object.keys(gathered.steps[0]?.received_outputs ?? {})).toHaveLength(steps);
};
