import type { PlanHubClient } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { expectRefusal } from '../helpers/refusals.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

/**
 * A dependency chain longer than a node's stack allowed a recursive cycle check to walk (about 7,000 steps): a wait
 * on its tail answered INTERNAL "Retrying may help". The check's walk is now bounded by `reachableSteps`: past it the
 * wait is refused with a reason, below it the cycle check is exact, and with the bound raised past the chain the same
 * wait succeeds (nothing recurses as deep as the chain).
 */

/** 16,000 steps: 80 plans of 200, each step waiting on the one before it, each plan's first on the previous last. */
const PLANS = 80;

const buildChain = async (h: Harness): Promise<PlanHubClient[]> => {
  const steps = Array.from({ length: 200 }, (_, i) => ({
    id: i + 1,
    description: `link ${i + 1}`,
    ...(i > 0 ? { depends_on: [i] } : {}),
  }));
  const agents = await Promise.all(Array.from({ length: PLANS }, (_, p) => h.client(`a${p}`)));
  // Plan mode records each plan's own order as 199 edges in one call (approved at once: approvalPolicy auto).
  await Promise.all(
    agents.map(async (agent) => {
      await agent.plan_enter({ goal: 'one link of a long chain' });
      await agent.plan_exit({ plan: { summary: 'chain', approach: 'in order', steps } });
    }),
  );
  // Linked from the far end, so each link's own check walks one plan's 200 steps, not the chain so far.
  for (let p = PLANS - 1; p > 0; p--)
    await agents[p]!.addDependentStep({
      step_id: 'step_1',
      depends_on: [{ agent_id: `a${p - 1}`, step_id: 'step_200' }],
    });
  return agents;
};

const prober = async (h: Harness): Promise<PlanHubClient> => {
  const x = await h.client('x');
  await x.createPlan({ title: 'waits on the chain', steps: ['tail', 'middle', 'spare'] });
  await x.startPlan({});
  return x;
};

describe.each(STORE_KINDS)('a dependency chain of 16,000 steps (%s store)', (kind) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('refuses a wait on its tail past reachableSteps, with the reason, and checks cycles exactly below it', async () => {
    h = await startHarness(kind, {
      approvalPolicy: 'auto',
      limits: { callsPerSecond: 100_000, reachableSteps: 1000 },
    });
    const agents = await buildChain(h);
    const x = await prober(h);
    const refused = await expectRefusal(
      x.addDependentStep({ step_id: 'step_1', depends_on: [{ agent_id: `a${PLANS - 1}`, step_id: 'step_200' }] }),
      'RESOURCE_EXHAUSTED',
      /reach more than 1000 steps through the dependencies still open behind them \(limit reachableSteps\)/,
    );
    expect(refused.details).toEqual({ kind: 'reachableSteps', limit: 1000 });
    // Nothing was written: the step still waits on nothing.
    expect((await x.getPlanStatus({})).steps[0]).toMatchObject({ status: 'pending' });

    // 800 steps behind a3's last: within the bound, so the wait is made ...
    const made = await x.addDependentStep({
      step_id: 'step_2',
      depends_on: [{ agent_id: 'a3', step_id: 'step_200' }],
    });
    expect(made).toMatchObject({ status: 'blocked', blocked_by: [{ agent_id: 'a3', step_id: 'step_200' }] });
    // ... and the chain's head waiting on it is a cycle through all 800, found exactly.
    await expectRefusal(
      agents[0]!.addDependentStep({ step_id: 'step_1', depends_on: [{ agent_id: 'a3', step_id: 'step_200' }] }),
      'FAILED_PRECONDITION',
      /a0:step_1 waiting on a3:step_200 would close a dependency cycle \(a0:step_1 \(plan [^)]+\) → a3:step_200/,
    );
  });

  it('makes the wait on its tail once the bound is raised past the chain: nothing recurses as deep', async () => {
    h = await startHarness(kind, {
      approvalPolicy: 'auto',
      limits: { callsPerSecond: 100_000, reachableSteps: 20_000 },
    });
    const agents = await buildChain(h);
    const x = await prober(h);
    const made = await x.addDependentStep({
      step_id: 'step_1',
      depends_on: [{ agent_id: `a${PLANS - 1}`, step_id: 'step_200' }],
    });
    expect(made).toMatchObject({ status: 'blocked' });
    // The head waiting on the tail closes a cycle through all 16,000 steps: refused as a cycle, not INTERNAL.
    await expectRefusal(
      agents[0]!.addDependentStep({
        step_id: 'step_1',
        depends_on: [{ agent_id: `a${PLANS - 1}`, step_id: 'step_200' }],
      }),
      'FAILED_PRECONDITION',
      /would close a dependency cycle/,
    );
  });
});
