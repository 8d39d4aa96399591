import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { createServer, type PlanHubServer } from '@planhub/server';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { STORE_KINDS, uniquePrefix } from '../helpers/servers.ts';
import { watchCountedNode, type WatchCountedNode } from '../helpers/watch-counting-store.ts';

/**
 * A startPlan waiting for a decision answers at once when its plan is cancelled meanwhile: no decision can come for a
 * cancelled plan (plan_approve refuses it), so waiting on would hold the call until its deadline or its connection
 * dropped. It refuses as a new startPlan on that plan does, whether the cancel reached it as an event or was already
 * committed when it read the plan again.
 */

/** Well under the test's time limit: a startPlan that still waits this long after the cancel would wait for ever. */
const PROMPT_MS = 5_000;

const STILL_WAITING = 'still waiting after the cancel';

/** The call's outcome, or STILL_WAITING when it has none within PROMPT_MS. */
const promptly = async <T>(call: Promise<T>): Promise<T | typeof STILL_WAITING> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof STILL_WAITING>((resolve) => (timer = setTimeout(resolve, PROMPT_MS, STILL_WAITING)));
  try {
    return await Promise.race([call, late]);
  } finally {
    clearTimeout(timer);
  }
};

/** The call, its refusal marked handled: it may come while the test still awaits the cancel that causes it. */
const waiting = <T>(call: Promise<T>): Promise<T> => {
  call.catch(() => undefined);
  return call;
};

/** The refusal a startPlan on a cancelled plan answers: upstream's words, then which plan and how to go on. */
const cancelledRefusal = (planId: string) => ({
  code: 'FAILED_PRECONDITION',
  message: expect.stringMatching(
    new RegExp(
      `^No active plan\\. Create a plan first with createPlan\\. \\(Plan ${planId} was cancelled while it waited for approval`,
    ),
  ) as string,
});

describe.each(STORE_KINDS)('startPlan whose plan is cancelled while it waits (%s store)', (kind) => {
  let node: WatchCountedNode | undefined;
  afterEach(async () => {
    await node?.close();
    node = undefined;
  });

  const start = async () => {
    node = await watchCountedNode(kind, { approvalPolicy: 'owner-or-user' });
    const { socket } = node;
    return { ...node, client: (agentId: string, role?: 'user') => socket(agentId, 'ws', role) };
  };

  it('answers at once when the cancel comes while it listens', async () => {
    const { counts, client } = await start();
    const agent = await client('a');
    const otherConnection = await client('a');
    const user = await client('u', 'user');
    const { plan_id } = await agent.createPlan({ title: 'T', steps: ['a', 'b'] });
    const starting = waiting(agent.startPlan({ plan_id }));
    await expect.poll(async () => (await user.getPlanStatus({ plan_id })).status).toBe('awaiting_approval');
    // Listening: the cancel reaches the call as an event, not through its read of the plan.
    await expect.poll(() => counts.open).toBe(1);
    expect(await otherConnection.completePlan({ plan_id, status: 'cancelled' })).toMatchObject({ status: 'cancelled' });
    await expect(promptly(starting)).rejects.toMatchObject(cancelledRefusal(plan_id));
    expect(counts.open).toBe(0);
    // Nothing is left to decide, and the plan stays cancelled.
    await expect(user.plan_approve({ plan_id })).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
    expect(await user.getPlanStatus({ plan_id })).toMatchObject({ status: 'cancelled' });
  });

  it('answers at once when the cancel was committed before it listened', async () => {
    const { counts, client, holdApprovalRequest } = await start();
    const agent = await client('a');
    const otherConnection = await client('a');
    const { plan_id } = await agent.createPlan({ title: 'T', steps: ['a'] });
    let cancelledWhileHeld = false;
    holdApprovalRequest(async () => {
      // The cancel commits after startPlan's commit and before it could listen: only its read of the plan sees it.
      await otherConnection.completePlan({ plan_id, status: 'cancelled' });
      cancelledWhileHeld = counts.watched === 0;
    });
    await expect(promptly(agent.startPlan({ plan_id }))).rejects.toMatchObject(cancelledRefusal(plan_id));
    expect(cancelledWhileHeld).toBe(true);
    expect(counts.open).toBe(0);
  });

  it('still refuses a plan cancelled before the call', async () => {
    const { counts, client } = await start();
    const agent = await client('a');
    const { plan_id } = await agent.createPlan({ title: 'T', steps: ['a'] });
    await agent.completePlan({ plan_id, status: 'cancelled' });
    await expect(promptly(agent.startPlan({ plan_id }))).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: expect.stringMatching(/^No active plan\. Create a plan first with createPlan\..*cancelled/) as string,
    });
    expect(counts).toEqual({ watched: 0, open: 0 });
  });
});

describe('startPlan whose plan is cancelled on another node while it waits (redis store)', () => {
  const servers: PlanHubServer[] = [];
  const clients: PlanHubClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  const TWO_NODE_CONFIG = { port: 0, logLevel: 'silent', approvalPolicy: 'owner-or-user' } as const;

  /** A connection of `agentId` to each of two nodes sharing one Redis prefix. */
  const onTwoNodes = async (agentId: string) => {
    const prefix = uniquePrefix();
    for (let i = 0; i < 2; i++)
      servers.push(createServer({ ...TWO_NODE_CONFIG, redisUrl: inject('redisUrl'), redisPrefix: prefix }));
    const urls = await Promise.all(servers.map(async (s) => (await s.listen()).url));
    for (const url of urls) clients.push(await connect({ url, agentId, workspace: 'ws' }));
    const [nodeA, nodeB] = clients as [PlanHubClient, PlanHubClient];
    return { nodeA, nodeB };
  };

  it('answers on its node once the cancel committed on the other one arrives', async () => {
    const { nodeA, nodeB } = await onTwoNodes('a');
    const { plan_id } = await nodeA.createPlan({ title: 'T', steps: ['a'] });
    const starting = waiting(nodeA.startPlan({ plan_id }));
    await expect.poll(async () => (await nodeB.getPlanStatus({ plan_id })).status).toBe('awaiting_approval');
    await nodeB.completePlan({ plan_id, status: 'cancelled' });
    await expect(promptly(starting)).rejects.toMatchObject(cancelledRefusal(plan_id));
  });
});
