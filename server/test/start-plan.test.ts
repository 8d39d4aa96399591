import type { Caller, ToolAnswer, ToolName, ToolParsedArgs } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type PlanHubServer } from '../src/create-server.ts';
import { newPlan } from '../src/core/plans/plan-factory.ts';
import { transact } from '../src/store/transact.ts';
import type { CallContext } from '../src/tools/context.ts';
import { HANDLERS } from '../src/tools/handlers.ts';
import { savePlan } from '../src/tools/plan-access.ts';

const agent: Caller = { workspace: 'ws', agent_id: 'a', role: 'agent' };
const user: Caller = { workspace: 'ws', agent_id: 'alice', role: 'user' };

describe('startPlan', () => {
  let server: PlanHubServer;
  afterEach(async () => server.close());

  /** A call as dispatch makes it; `beforeCommit` runs inside the call, after its wait started, before its body. */
  const call = async <N extends ToolName>(
    caller: Caller,
    tool: N,
    args: ToolParsedArgs<N>,
    beforeCommit?: () => Promise<unknown>,
  ): Promise<ToolAnswer<N>> => {
    const ctx: CallContext = {
      caller,
      services: server.services,
      signal: new AbortController().signal,
      transact: async (body) => {
        await beforeCommit?.();
        return (await transact(server.services.store, caller.workspace, body)).result;
      },
    };
    return HANDLERS[tool](ctx, args);
  };

  it('answers a retry after the rejection with the decision and its reason', async () => {
    server = createServer({ port: 0, logLevel: 'silent' });
    const { plan_id } = await call(agent, 'createPlan', { title: 'T', steps: ['s'] });
    expect(await call(agent, 'startPlan', { wait: false })).toMatchObject({ status: 'awaiting_approval' });
    await call(user, 'plan_reject', { plan_id, reason: 'too risky' });
    // What the SDK does when the connection dropped while it waited: the same call again.
    expect(await call(agent, 'startPlan', { wait: true })).toMatchObject({
      plan_id,
      status: 'rejected',
      reason: 'too risky',
    });
    expect(await call(agent, 'startPlan', { wait: true, plan_id })).toMatchObject({ status: 'rejected' });
  });

  it("waits for its own plan's decision, not for one on another plan of the agent made meanwhile", async () => {
    server = createServer({ port: 0, logLevel: 'silent' });
    const first = await call(agent, 'createPlan', { title: 'First', steps: ['s'] });
    await call(agent, 'startPlan', { wait: false });
    // A second plan of the same agent, newer, so startPlan without plan_id means it (seeded: createPlan refuses it).
    const second = newPlan({
      plan_id: 'second01',
      workspace: 'ws',
      agent_id: 'a',
      title: 'Second',
      dialect: '000',
      steps: [{ description: 's' }],
      now: new Date(Date.now() + 1000).toISOString(),
    });
    await transact(server.services.store, 'ws', (tx) => savePlan(tx, second));

    const starting = call(agent, 'startPlan', { wait: true }, () =>
      call(user, 'plan_approve', { plan_id: first.plan_id }),
    );
    await expect
      .poll(async () => (await call(user, 'getPlanStatus', { plan_id: second.plan_id })).status)
      .toBe('awaiting_approval');
    await call(user, 'plan_reject', { plan_id: second.plan_id, reason: 'not this one' });
    expect(await starting).toMatchObject({ plan_id: second.plan_id, status: 'rejected', reason: 'not this one' });
  });
});
