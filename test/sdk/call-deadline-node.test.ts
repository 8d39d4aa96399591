import { PlanHubError } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';

/** A node holds at most this many waits of one kind per agent (server/src/limits/wait-slots.ts). */
const WAIT_SLOTS = 16;
/** Well before the 12 s a 1 s deadline used to take (9 attempts), and far above what it takes now. */
const PROMPTLY_MS = 6_000;

const outcome = (call: Promise<unknown>) =>
  call.then(
    () => 'answered',
    (err: unknown) => (err instanceof PlanHubError ? `${err.code}: ${err.message}` : String(err)),
  );

/**
 * A caller's `timeoutMs` is one deadline for the whole call, and no wait the call made stays behind on the node: before,
 * every retry of a timed-out wait left one more, and the agent's next waits were refused RESOURCE_EXHAUSTED.
 */
describe("a caller's deadline on a call that waits on a real node", () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('answers a startPlan with a deadline promptly, leaving no wait for a decision on the node', async () => {
    h = await startHarness('memory', { approvalPolicy: 'user' });
    const agent = await h.client('deadline-agent');
    const { plan_id } = await agent.createPlan({ title: 't', steps: ['a'] });
    const started = Date.now();
    const first = await agent.startPlan({}, { timeoutMs: 1000 });
    expect(Date.now() - started).toBeLessThan(PROMPTLY_MS);
    // Nothing decided yet: the answer says so (the decision comes as plan_approved / plan_rejected).
    expect(first.status).toBe('awaiting_approval');
    // More calls than the agent has slots: each one held a slot before.
    for (let i = 0; i < WAIT_SLOTS + 1; i++)
      expect(await outcome(agent.startPlan({}, { timeoutMs: 1000 })), `call ${i + 2}`).toBe('answered');
    // Every slot is free: as many waiting calls (no deadline) as the node allows all wait, and the decision ends them.
    const waiting = Array.from({ length: WAIT_SLOTS }, () => agent.startPlan({}, { retries: 0 }));
    const user = await h.client('deadline-user', { role: 'user' });
    await user.plan_approve({ plan_id });
    for (const answer of await Promise.all(waiting)) expect(answer.status).toBe('in_progress');
  });

  it("ends a long-poll's wait on the node by the caller's deadline, so no wait outlives the call", async () => {
    h = await startHarness('memory');
    const agent = await h.client('deadline-poller');
    const poll = () =>
      agent.getTaskEvents({ event_types: ['plan_cancelled'], timeout: 30, after_event: '$' }, { timeoutMs: 2000 });
    const started = Date.now();
    const both = await Promise.all([outcome(poll()), outcome(poll())]);
    expect(Date.now() - started).toBeLessThan(PROMPTLY_MS);
    // Answered empty before the deadline, or at worst its timeout, which names the caller's figure.
    for (const one of both) expect(one).toMatch(/^(answered|DEADLINE_EXCEEDED: no answer within 2000 ms)$/);
    // No wait stayed behind: as many fresh long-polls as the agent has slots are all taken (none is refused).
    const fresh = Array.from({ length: WAIT_SLOTS }, () =>
      outcome(agent.getTaskEvents({ event_types: ['plan_cancelled'], timeout: 1, after_event: '$' }, { retries: 0 })),
    );
    expect(await Promise.all(fresh)).toEqual(Array<string>(WAIT_SLOTS).fill('answered'));
  });
});
