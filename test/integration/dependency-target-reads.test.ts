import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { countedNode, type CountedNode } from '../helpers/counted-node.ts';
import { everyoneOnline, startedPlan } from '../helpers/event-log.ts';
import type { StoreFixtureKind } from '../helpers/stores.ts';

const KINDS: readonly StoreFixtureKind[] = ['memory', 'redis', 'file'];

describe.each(KINDS)('a step waiting on many subagents reads them together (%s store)', (kind) => {
  let node: CountedNode;
  const children: PlanHubClient[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) child.close();
    await node.close();
  });

  it('reads as often to wait on eight named steps as on one', async () => {
    node = await countedNode(kind);
    const { client: parent, reads } = node;
    const targets: Array<{ agent_id: string; step_id: string; plan_id: string }> = [];
    for (let i = 0; i < 8; i++) {
      const child = await connect({ url: node.url, agentId: `child-${i}`, workspace: 'ws' });
      children.push(child);
      const plan = await startedPlan(child, `part ${i}`, ['part']);
      targets.push({ agent_id: `child-${i}`, step_id: 'step_1', plan_id: plan.plan_id });
    }
    await startedPlan(parent, 'merge', ['plan the merge']);
    // Counted node-wide: a late agent_online's read would count as the call's.
    await everyoneOnline(parent, 1 + targets.length);
    const loadsOf = async (depends_on: typeof targets) => {
      const before = reads.load + reads.loadCollections;
      const answer = await parent.addDependentStep({ description: 'merge the parts', depends_on });
      expect(answer.status).toBe('blocked');
      expect(answer.blocked_by.map((d) => d.agent_id)).toEqual(depends_on.map((t) => t.agent_id));
      return reads.load + reads.loadCollections - before;
    };
    const one = await loadsOf(targets.slice(0, 1));
    const eight = await loadsOf(targets);
    // The targets' plans and steps come in one round trip, and so do their waiter lists.
    expect(eight).toBe(one);
    // Named without plan_id: the agents' indexes, their plans' headers and the steps, each in one round trip.
    const unnamed = targets.map(({ agent_id, step_id }) => ({ agent_id, step_id }));
    const oneUnnamed = await loadsOf(unnamed.slice(0, 1) as typeof targets);
    expect(await loadsOf(unnamed as typeof targets)).toBe(oneUnnamed);
  });

  it('finds a step named without plan_id from its plans’ headers, reading no other step of them', async () => {
    node = await countedNode(kind);
    const { client: parent, reads } = node;
    const child = await connect({ url: node.url, agentId: 'child', workspace: 'ws' });
    children.push(child);
    // An older finished plan and the current one, both long: the step is in the older one only.
    const names = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`);
    const older = await startedPlan(child, 'older', names(60, 'old'));
    await child.completePlan({ status: 'cancelled' });
    await startedPlan(child, 'current', names(50, 'new'));
    await child.addStep({ description: 'only in the current plan' });
    await startedPlan(parent, 'merge', ['plan the merge']);
    const stepReads = async (step_id: string) => {
      const before = reads.stepKeys.length;
      const answer = await parent.addDependentStep({
        description: `wait on ${step_id}`,
        depends_on: [{ agent_id: 'child', step_id }],
      });
      return { answer, steps: reads.stepKeys.slice(before) };
    };
    // In the current plan (step_51), then only in the older one (step_55 does not exist in the current plan).
    const current = await stepReads('step_51');
    expect(current.answer).toMatchObject({
      status: 'blocked',
      blocked_by: [{ agent_id: 'child', step_id: 'step_51' }],
    });
    expect(current.steps.filter((k) => !k.includes(current.answer.plan_id))).toHaveLength(1);
    const old = await stepReads('step_55');
    expect(old.answer.depends_on).toEqual([{ agent_id: 'child', step_id: 'step_55', plan_id: older.plan_id }]);
    expect(old.answer.status).toBe('pending');
    expect(old.steps.filter((k) => k.startsWith(`step:${older.plan_id}:`))).toEqual([`step:${older.plan_id}:step_55`]);
  });

  it('waits on two steps of one plan, named with plan_id or not', async () => {
    node = await countedNode(kind);
    const { client: parent } = node;
    const child = await connect({ url: node.url, agentId: 'child', workspace: 'ws' });
    children.push(child);
    const plan = await startedPlan(child, 'two parts', ['first', 'second']);
    await startedPlan(parent, 'merge', ['plan the merge']);
    const both = [
      { agent_id: 'child', step_id: 'step_1', plan_id: plan.plan_id },
      { agent_id: 'child', step_id: 'step_2', plan_id: plan.plan_id },
    ];
    const named = await parent.addDependentStep({ description: 'named', depends_on: both });
    expect(named).toMatchObject({ status: 'blocked', blocked_by: both });
    const unnamed = await parent.addDependentStep({
      description: 'unnamed',
      depends_on: both.map(({ agent_id, step_id }) => ({ agent_id, step_id })),
    });
    expect(unnamed).toMatchObject({ status: 'blocked', blocked_by: both });
  });

  it('registers a wait without reading who else waits on the step', async () => {
    node = await countedNode(kind);
    const { client: parent, reads } = node;
    const child = await connect({ url: node.url, agentId: 'child', workspace: 'ws' });
    children.push(child);
    await startedPlan(child, 'part', ['part']);
    await startedPlan(parent, 'merge', ['plan the merge']);
    const before = reads.hashKeys.length;
    for (let i = 0; i < 5; i++)
      await parent.addDependentStep({
        description: `wait ${i}`,
        depends_on: [{ agent_id: 'child', step_id: 'step_1' }],
      });
    expect(reads.hashKeys.slice(before).filter((k) => k.startsWith('waiters:'))).toEqual([]);
    const done = await child.completeStepWithOutput({ step_id: 'step_1', output: { part: 1 } });
    expect(done.unblocked).toHaveLength(5);
  });
});
