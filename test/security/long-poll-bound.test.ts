import type { CallAck } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { WAITS_PER_AGENT } from '../../server/src/limits/wait-slots.ts';
import { poll } from '../helpers/eventually.ts';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { openAuth, rawClient, type RawClient } from './support/raw-client.ts';

/**
 * One agent may not park an unbounded number of getTaskEvents waits: each checks every event of its workspace while
 * it lasts, for one call unit, so thousands of them made every commit of the workspace slow for everyone.
 */
describe('long-poll waits per agent', () => {
  let h: Harness;
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await h.close();
  });

  it('refuses the wait past the bound at once, serves the others, and frees the slots as they answer', async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    const poller = await rawClient(h.url, openAuth('ws', 'poller'));
    const worker = await rawClient(h.url, openAuth('ws', 'worker'));
    clients.push(poller, worker);
    const wait = () => poller.call('getTaskEvents', { timeout: 20, event_types: ['plan_created'], after_event: '0-0' });
    const all = Array.from({ length: WAITS_PER_AGENT + 1 }, wait);
    // Nothing to return yet: the only answer before a plan is created is the refusal of the one past the bound.
    const refused: CallAck = await Promise.race(all);
    expect(refused).toMatchObject({ ok: false, error: { code: 'RESOURCE_EXHAUSTED' } });
    expect(!refused.ok && refused.error.message).toMatch(/getTaskEvents calls waiting on this node \(limit 16\)/);
    // Another agent is not held to the poller's bound.
    const other = await rawClient(h.url, openAuth('ws', 'other'));
    clients.push(other);
    const others = other.call('getTaskEvents', { timeout: 20, event_types: ['plan_created'], after_event: '0-0' });
    expect((await worker.call('createPlan', { title: 'wakes them', steps: ['one'] })).ok).toBe(true);
    const answers = [...(await Promise.all(all)), await others];
    expect(answers.filter((a) => !a.ok)).toEqual([refused]);
    for (const answer of answers.filter((a) => a.ok)) expect(answer).toMatchObject({ result: { count: 1 } });
    expect(answers.filter((a) => a.ok)).toHaveLength(WAITS_PER_AGENT + 1);
    expect(await wait()).toMatchObject({ ok: true, result: { count: 1 } });
  });

  it('lets one connection hold every wait its agent may, without a listener-leak warning from the node', async () => {
    h = await startHarness('memory', { approvalPolicy: 'owner-or-user' });
    const agent = await rawClient(h.url, openAuth('ws', 'agent'));
    const user = await rawClient(h.url, openAuth('ws', 'person', 'user'));
    clients.push(agent, user);
    // The node runs in this process: its warnings are this process's.
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const created = await agent.call('createPlan', { title: 'awaits a decision', steps: ['one'] });
      const planId = created.ok ? (created.result as { plan_id: string }).plan_id : '';
      const polls = Array.from({ length: WAITS_PER_AGENT }, () =>
        agent.call('getTaskEvents', { timeout: 20, event_types: ['plan_approved'], after_event: '0-0' }),
      );
      const starts = Array.from({ length: WAITS_PER_AGENT }, () => agent.call('startPlan', {}));
      // Every wait is listening once the plan awaits approval and a status read on the same connection is answered.
      await poll(async () => {
        const status = await user.call('getPlanStatus', { plan_id: planId });
        return status.ok && (status.result as { status: string }).status;
      }).toBe('awaiting_approval');
      expect((await agent.call('getPlanStatus', { plan_id: planId })).ok).toBe(true);
      expect((await user.call('plan_approve', { plan_id: planId })).ok).toBe(true);
      const answers = await Promise.all([...polls, ...starts]);
      expect(answers.filter((a) => !a.ok)).toEqual([]);
      // Warnings are emitted on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
