import { afterEach, describe, expect, it } from 'vitest';
import { conflictsIn } from '../helpers/concurrent-writers.ts';
import { endRound, raceCycleAcrossDisjointSteps, type CycleRaceAgents } from '../helpers/cycle-race.ts';
import { startedPlan } from '../helpers/event-log.ts';
import { startHarness, type Harness, type HarnessStoreKind } from '../helpers/servers.ts';
import { rounds } from '../helpers/stress.ts';

const KINDS: readonly HarnessStoreKind[] = ['memory', 'redis', 'file'];

describe.each(KINDS)('the cycle check without a workspace-wide document (%s store)', (kind) => {
  let h: Harness;
  afterEach(async () => h.close());
  const start = async () => {
    // Races make many calls per second from one agent; the per-agent call budget is not under test.
    h = await startHarness(kind, { approvalPolicy: 'auto', limits: { callsPerSecond: 100_000 } });
    return h;
  };
  const conflicts = async () => conflictsIn([await (await fetch(`${h.url}/metrics`)).text()]);

  it('never lets two additions that share no plan or step document close a cycle together', async () => {
    await start();
    const ids = { w: 'w', x: 'x', y: 'y', z: 'z' };
    const agents = Object.fromEntries(
      await Promise.all(Object.entries(ids).map(async ([role, id]) => [role, await h.client(id)] as const)),
    ) as unknown as CycleRaceAgents;
    for (let round = 0; round < rounds(30); round++) {
      const outcomes = await raceCycleAcrossDisjointSteps(agents, ids, round);
      expect(outcomes.sort()).toEqual(['FAILED_PRECONDITION', 'ok']);
      await endRound(agents);
    }
  });

  it('lets parents each add a step waiting on another agent at once, each on its first attempt', async () => {
    await start();
    const n = rounds(30);
    const [parents, children] = await Promise.all(
      ['parent', 'child'].map((role) => Promise.all(Array.from({ length: n }, (_, i) => h.client(`${role}-${i}`)))),
    );
    await Promise.all([...(parents ?? []), ...(children ?? [])].map((a) => startedPlan(a, 'work', ['own work'])));
    const before = await conflicts();
    // Independent work: each parent waits on its own child, so no two calls share a plan, a step or a waiter list.
    const added = await Promise.all(
      (parents ?? []).map((parent, i) =>
        parent.addDependentStep({
          description: 'use the child’s work',
          depends_on: [{ agent_id: `child-${i}`, step_id: 'step_1' }],
        }),
      ),
    );
    expect(await conflicts()).toBe(before);
    for (const answer of added) expect(answer).toMatchObject({ status: 'blocked', step_id: 'step_2' });
  });
});
