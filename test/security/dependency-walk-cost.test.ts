import { describe, expect, it } from 'vitest';
import type { RawClient } from './support/raw-client.ts';
import { serverFixture } from './support/server-fixture.ts';

/** 200 units per agent per 10 s window. */
const LIMITS = { callsPerSecond: 20, rateWindowSeconds: 10 } as const;

type Ack = { ok: boolean; error?: { code: string; message: string; details?: unknown } };

/**
 * addDependentStep's cycle check reads the graph behind its targets, a level per two store round trips: a wait on
 * the tail of a 5,000-step chain cost 310-410 ms of node CPU on Redis and was charged 1 unit. The walk is bounded
 * (`reachableSteps`) and charged by what it read, refused or not (`walkCost`).
 */
describe('what the cycle check of a wait costs its caller', () => {
  const { node, join } = serverFixture({ limits: LIMITS, approvalPolicy: 'auto' });

  /** 1,200 steps: 6 plan-mode plans of 200, each step waiting on the one before, each plan's first on the last one. */
  const buildChain = async (url: string) => {
    const steps = Array.from({ length: 200 }, (_, i) => ({
      id: i + 1,
      description: `link ${i + 1}`,
      ...(i > 0 ? { depends_on: [i] } : {}),
    }));
    const agents: RawClient[] = [];
    for (let p = 0; p < 6; p++) {
      const agent = await join(url, 'ws', `a${p}`);
      expect(await agent.call('plan_enter', { goal: 'a link' })).toMatchObject({ ok: true });
      expect(await agent.call('plan_exit', { plan: { summary: 'chain', approach: 'in order', steps } })).toMatchObject({
        ok: true,
      });
      agents.push(agent);
    }
    // From the far end: each link's own check reads one plan's 200 steps.
    for (let p = 5; p > 0; p--)
      expect(
        await agents[p]!.call('addDependentStep', {
          step_id: 'step_1',
          depends_on: [{ agent_id: `a${p - 1}`, step_id: 'step_200' }],
        }),
      ).toMatchObject({ ok: true });
  };

  /** A fresh agent's step waits on `target`; then the agent's next call, which its window may no longer admit. */
  const waitThenCall = async (url: string, name: string, target: { agent_id: string; step_id: string }) => {
    const agent = await join(url, 'ws', name);
    expect(await agent.call('createPlan', { title: name, steps: ['wait'] })).toMatchObject({ ok: true });
    expect(await agent.call('startPlan', { wait: false })).toMatchObject({ ok: true });
    const wait = (await agent.call('addDependentStep', { step_id: 'step_1', depends_on: [target] })) as Ack;
    const next = (await agent.call('getPlanStatus', {})) as Ack;
    const outcome = (ack: Ack) => (ack.ok ? 'ok' : `${ack.error?.code}: ${ack.error?.message.slice(0, 40)}`);
    return { wait: outcome(wait), next: outcome(next), details: wait.error?.details };
  };

  it('charges the walk by its levels and steps, refused past reachableSteps or not', async () => {
    const url = await node();
    await buildChain(url);
    // Two steps deep: free, as any short dependency is.
    expect(await waitThenCall(url, 'near', { agent_id: 'a0', step_id: 'step_2' })).toMatchObject({
      wait: 'ok',
      next: 'ok',
    });
    // 800 steps in a chain: 221 units, past the window's 200 (charged 1 unit, the agent had 196 left).
    const far = await waitThenCall(url, 'far', { agent_id: 'a3', step_id: 'step_200' });
    expect(far.wait).toBe('ok');
    expect(far.next).toMatch(/^RESOURCE_EXHAUSTED: Too many calls/);
    // 1,200: refused once 1,000 are read, and those are charged too (277 units).
    const past = await waitThenCall(url, 'past', { agent_id: 'a5', step_id: 'step_200' });
    expect(past.wait).toMatch(/^RESOURCE_EXHAUSTED: The steps this step would wait on/);
    expect(past.details).toEqual({ kind: 'reachableSteps', limit: 1000 });
    expect(past.next).toMatch(/^RESOURCE_EXHAUSTED: Too many calls/);
  });
});
