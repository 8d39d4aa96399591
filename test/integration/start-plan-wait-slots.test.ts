import type { CallAck } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { WAITS_PER_AGENT } from '../../server/src/limits/wait-slots.ts';
import { poll } from '../helpers/eventually.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { within } from '../helpers/within.ts';
import { openAuth, rawClient, type RawClient } from '../security/support/raw-client.ts';

/**
 * A startPlan waiting for a person's decision is a listener every event of the workspace passes through, as a
 * getTaskEvents long-poll is; one agent re-sending them held 7,519 after 40 s. They take a wait slot too.
 */
describe.each(STORE_KINDS)('startPlan calls waiting for a decision, per agent (%s store)', (store) => {
  let h: Harness;
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await h.close();
  });

  const open = async (agentId: string, role?: 'user') => {
    const client = await rawClient(h.url, openAuth('ws', agentId, role));
    clients.push(client);
    return client;
  };

  /** A plan of `agent` awaiting approval, with WAITS_PER_AGENT + 1 startPlan calls on it. */
  const waitingOn = async (agent: RawClient, user: RawClient, title: string) => {
    const created = await agent.call('createPlan', { title, steps: ['a'] });
    const planId = created.ok ? (created.result as { plan_id: string }).plan_id : '';
    const first = agent.call('startPlan', {});
    await poll(async () => {
      const status = await user.call('getPlanStatus', { plan_id: planId });
      return status.ok && (status.result as { status: string }).status;
    }).toBe('awaiting_approval');
    const rest = Array.from({ length: WAITS_PER_AGENT }, () => agent.call('startPlan', {}));
    return { planId, all: [first, ...rest] };
  };

  /** One refused at once, with a message naming the plan; the others answered once the plan is approved. */
  const boundOnce = async (agent: RawClient, user: RawClient, title: string) => {
    const { planId, all } = await waitingOn(agent, user, title);
    // Nothing else can answer before the approval: the first answer is the refusal of the call past the bound.
    const refused = await within(Promise.race(all), 10_000, 'none refused');
    expect(refused).toMatchObject({ ok: false, error: { code: 'RESOURCE_EXHAUSTED' } });
    expect((refused as CallAck & { ok: false }).error.message).toMatch(
      new RegExp(
        `^You already have 16 startPlan calls waiting for a decision on this node \\(limit 16\\)\\. Plan ${planId} ` +
          'awaits approval',
      ),
    );
    expect((await user.call('plan_approve', { plan_id: planId })).ok).toBe(true);
    const answers = await Promise.all(all);
    expect(answers.filter((a) => !a.ok)).toEqual([refused]);
    for (const answer of answers.filter((a) => a.ok))
      expect(answer).toMatchObject({ result: { plan_id: planId, status: 'in_progress', confirmed: true } });
  };

  it('refuses the wait past the bound at once, answers the others on approval, and frees their slots', async () => {
    h = await startHarness(store, { approvalPolicy: 'owner-or-user' });
    const agent = await open('agent');
    const user = await open('u', 'user');
    await boundOnce(agent, user, 'First');
    // Every slot is back: the agent's next plan has as many waiting calls again, and only the one past them refused.
    expect((await agent.call('completePlan', { status: 'completed' })).ok).toBe(true);
    await boundOnce(agent, user, 'Second');
  });
});
