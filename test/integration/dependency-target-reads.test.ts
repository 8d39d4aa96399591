import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { countedNode, type CountedNode } from '../helpers/counted-node.ts';
import { startedPlan } from '../helpers/event-log.ts';
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
  });
});
