import type { PlanHubClient } from '@planhub/client-sdk';
import { PlanHubError } from '@planhub/client-sdk';
import { expect } from 'vitest';
import { startedPlan, unblocksOf } from './event-log.ts';
import { poll } from './eventually.ts';
import type { Connect } from './spawn-race.ts';

/**
 * One round of a wait on a step its plan does not have yet, raced with that plan's end: `waiters` agents each add a
 * step waiting on the owner's `step_2` (named with its plan_id) while the owner completes its one-step plan. Each
 * registration either commits before the end (its step then resolves, told `skipped`, by exactly one step_unblocked)
 * or after it (refused: the finished plan gets no more steps). None may be left waiting. The first waiter registers
 * before the end starts, so every round releases at least one.
 */
export const awaitedStepRaceRound = async (
  connect: Connect,
  options: { tag: string; waiters: number },
): Promise<{ registered: number; refused: number }> => {
  const { tag, waiters } = options;
  const owner = await connect(`${tag}-owner`);
  const target = await startedPlan(owner, `${tag} target`, ['work']);
  await owner.setStepStatus({ step_id: 'step_1', status: 'completed' });
  const clients = await Promise.all(
    Array.from({ length: waiters }, async (_, i) => {
      const client = await connect(`${tag}-waiter${i}`);
      return { client, plan: await startedPlan(client, `${tag} waiter ${i}`, ['prepare']) };
    }),
  );
  const register = async ({ client }: { client: PlanHubClient }) => {
    try {
      const added = await client.addDependentStep({
        description: 'use the second step',
        depends_on: [{ agent_id: `${tag}-owner`, step_id: 'step_2', plan_id: target.plan_id }],
      });
      expect(added.status).toBe('blocked');
      return added.step_id;
    } catch (err) {
      expect(err).toBeInstanceOf(PlanHubError);
      expect((err as PlanHubError).code).toBe('NOT_FOUND');
      expect((err as PlanHubError).message).toContain('gets no more steps');
      return undefined;
    }
  };
  // The first waiter registers before the end, for certain, and times a registration. The others then register at
  // once while the end starts somewhere within about one registration's time, so some commit before it, some after.
  const started = performance.now();
  const first = await register(clients[0] as (typeof clients)[number]);
  const took = performance.now() - started;
  const end = new Promise((resolve) => setTimeout(resolve, Math.random() * took * 1.5)).then(() =>
    owner.completePlan({ plan_id: target.plan_id, status: 'completed' }),
  );
  const [, ...rest] = await Promise.all([end, ...clients.slice(1).map(register)]);
  const steps = [first, ...rest];
  let registered = 0;
  for (const [i, stepId] of steps.entries()) {
    if (stepId === undefined) continue;
    registered += 1;
    const { client, plan } = clients[i] as (typeof clients)[number];
    const stepOf = async () =>
      (await client.getPlanStatus({ plan_id: plan.plan_id })).steps.find((s) => s.step_id === stepId);
    await poll(async () => (await stepOf())?.status).toBe('pending');
    const events = await unblocksOf(client, plan.plan_id, stepId);
    expect(events).toHaveLength(1);
    expect(events[0]?.payload.outputs).toEqual({
      [`${tag}-owner:step_2`]: { status: 'skipped', result: 'plan completed without a step step_2', error: null },
    });
  }
  return { registered, refused: waiters - registered };
};
