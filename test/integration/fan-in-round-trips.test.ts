import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { countedNode, type CountedNode } from '../helpers/counted-node.ts';
import { everyoneOnline, startedPlan } from '../helpers/event-log.ts';
import type { StoreFixtureKind } from '../helpers/stores.ts';

const KINDS: readonly StoreFixtureKind[] = ['memory', 'redis', 'redis-cluster', 'file'];

describe.each(KINDS)('a subagent’s step that others wait on ends in one read and one commit (%s store)', (kind) => {
  let node: CountedNode;
  const agents: PlanHubClient[] = [];
  afterEach(async () => {
    for (const agent of agents.splice(0)) agent.close();
    await node.close();
  });

  it('reads who waits and their plans with its own step, and the last one unblocks with every output', async () => {
    node = await countedNode(kind);
    const { url, reads } = node;
    const join = async (agentId: string) => {
      const agent = await connect({ url, agentId, workspace: 'ws' });
      agents.push(agent);
      return agent;
    };
    const children = await Promise.all([0, 1, 2].map((i) => join(`child-${i}`)));
    const plans = await Promise.all(children.map((child, i) => startedPlan(child, `part ${i}`, ['part', 'more'])));
    const targets = plans.map((plan, i) => ({ agent_id: `child-${i}`, step_id: 'step_1', plan_id: plan.plan_id }));
    // Two parents wait on every child: each completion delivers to both.
    const parents = [node.client, await join('other-parent')];
    for (const [i, parent] of parents.entries()) {
      await startedPlan(parent, `merge ${i}`, ['plan the merge']);
      const added = await parent.addDependentStep({ description: 'merge the parts', depends_on: targets });
      expect(added.status).toBe('blocked');
    }

    await everyoneOnline(node.client, 2 + children.length);
    for (const [i, child] of children.entries()) {
      const before = reads.calls.length;
      const answer = await child.completeStepWithOutput({
        plan_id: targets[i]?.plan_id,
        step_id: 'step_1',
        output: { part: i },
      });
      expect(answer.status).toBe('completed');
      // The step, its plan, who waits on it and the waiting plans' headers and steps: one read, then the commit.
      expect(reads.calls.slice(before)).toEqual(['loadWith', 'commit']);
      // Only the last completion unblocks the parents' steps.
      expect(answer.unblocked).toHaveLength(i === children.length - 1 ? parents.length : 0);
    }
    for (const parent of parents) {
      const status = await parent.getPlanStatus({});
      const merge = status.steps.find((s) => s.description === 'merge the parts');
      expect(merge?.status).toBe('pending');
      expect(Object.values(merge?.received_outputs ?? {})).toEqual(
        expect.arrayContaining([{ part: 0 }, { part: 1 }, { part: 2 }]),
      );
    }
  });
});
