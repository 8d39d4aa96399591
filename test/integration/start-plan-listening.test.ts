import type { ServerConfigInput } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_FIXTURE_KINDS } from '../helpers/stores.ts';
import { watchCountedNode, type WatchCountedNode } from '../helpers/watch-counting-store.ts';

/**
 * startPlan listens to the workspace's events only when it will wait for a decision, and only after its commit: a node
 * whose agents start plans under the auto policy (or with wait=false) does not follow their workspace, and a decision
 * committed between the call's commit and its listening is still seen (docs/architecture.md, event delivery).
 */
describe.each(STORE_FIXTURE_KINDS)('startPlan and the event feed (%s store)', (kind) => {
  let node: WatchCountedNode | undefined;
  afterEach(async () => {
    await node?.close();
    node = undefined;
  });

  const start = async (config: ServerConfigInput) => {
    node = await watchCountedNode(kind, config);
    const { socket } = node;
    return { ...node, client: (agentId: string, role?: 'user') => socket(agentId, 'ws', role) };
  };

  it('follows no workspace to start plans under the auto policy', async () => {
    const { counts, client } = await start({ approvalPolicy: 'auto' });
    const agent = await client('a');
    for (let i = 0; i < 3; i++) {
      await agent.createPlan({ title: `plan ${i}`, steps: ['a', 'b'] });
      expect(await agent.startPlan({})).toMatchObject({ status: 'in_progress', confirmed: true });
      await agent.completePlan({ status: 'completed' });
    }
    expect(counts).toEqual({ watched: 0, open: 0 });
  });

  it('follows no workspace for a startPlan that does not wait', async () => {
    const { counts, client } = await start({ approvalPolicy: 'owner-or-user' });
    const agent = await client('a');
    const { plan_id } = await agent.createPlan({ title: 'T', steps: ['a'] });
    expect(await agent.startPlan({ wait: false })).toMatchObject({ plan_id, status: 'awaiting_approval' });
    expect(counts).toEqual({ watched: 0, open: 0 });
  });

  it('listens while it waits for a decision, and stops once answered', async () => {
    const { counts, client } = await start({ approvalPolicy: 'owner-or-user' });
    const agent = await client('a');
    const user = await client('u', 'user');
    const { plan_id } = await agent.createPlan({ title: 'T', steps: ['a'] });
    const starting = agent.startPlan({});
    await expect.poll(async () => (await user.getPlanStatus({ plan_id })).status).toBe('awaiting_approval');
    await expect.poll(() => counts.open).toBe(1);
    await user.plan_approve({ plan_id });
    expect(await starting).toMatchObject({ plan_id, status: 'in_progress', confirmed: true });
    expect(counts).toEqual({ watched: 1, open: 0 });
  });

  it.each([
    ['approval', 'in_progress'],
    ['rejection', 'rejected'],
  ] as const)('answers a %s committed before the call listens', async (what, status) => {
    const { counts, client, holdApprovalRequest } = await start({ approvalPolicy: 'owner-or-user' });
    const agent = await client('a');
    const user = await client('u', 'user');
    const { plan_id } = await agent.createPlan({ title: 'T', steps: ['a'] });
    let decidedWhileHeld = false;
    holdApprovalRequest(async () => {
      // The decision commits before startPlan's commit answers, so before startPlan could have started listening.
      if (what === 'approval') await user.plan_approve({ plan_id });
      else await user.plan_reject({ plan_id, reason: 'not now' });
      decidedWhileHeld = counts.watched === 0;
    });
    const answer = await agent.startPlan({});
    expect(decidedWhileHeld).toBe(true);
    expect(answer).toMatchObject({ plan_id, status, ...(what === 'rejection' ? { reason: 'not now' } : {}) });
    expect(counts.open).toBe(0);
  });
});
