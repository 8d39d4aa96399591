import { createServer } from '@planhub/server';
import { describe, expect, it } from 'vitest';
import { openAuth, rawClient, type RawClient } from './support/raw-client.ts';
import { IDENTITY, ROLES, expected, outcomeOf, type Outcome, type PerRole } from './support/role-matrix-table.ts';

/** Who may approve a plan under each approval policy: the owner, another agent, a user, a dashboard. */
describe('approvals follow the configured policy', () => {
  const POLICY_TABLE: Record<'user' | 'owner-or-user' | 'auto', PerRole> = {
    user: ['DENIED', 'DENIED', 'ok', 'DENIED'],
    'owner-or-user': ['ok', 'DENIED', 'ok', 'DENIED'],
    // Auto approves at startPlan: nothing is left to decide, and the others may not decide anyway.
    auto: ['PRECONDITION', 'DENIED', 'PRECONDITION', 'DENIED'],
  };

  it.each(Object.entries(POLICY_TABLE))('policy %s', async (policy, outcomes) => {
    const node = createServer({
      port: 0,
      logLevel: 'silent',
      approvalPolicy: policy as keyof typeof POLICY_TABLE,
      limits: { callsPerSecond: 100_000 },
    });
    const { url: nodeUrl } = await node.listen();
    const clients: RawClient[] = [];
    try {
      for (const [i, role] of ROLES.entries()) {
        const workspace = `p-${policy}-${role}`;
        const owner = await rawClient(nodeUrl, openAuth(workspace, 'owner'));
        clients.push(owner);
        const created = await owner.call('createPlan', { title: 't', steps: ['a'] });
        if (!created.ok) throw new Error(created.error.message);
        const planId = (created.result as { plan_id: string }).plan_id;
        const started = await owner.call('startPlan', { wait: false });
        expect(started.ok && (started.result as { status: string }).status).toBe(
          policy === 'auto' ? 'in_progress' : 'awaiting_approval',
        );
        const { agent, role: wireRole } = IDENTITY[role];
        const decider = role === 'owner' ? owner : await rawClient(nodeUrl, openAuth(workspace, agent, wireRole));
        clients.push(decider);
        const ack = await decider.call('plan_approve', { plan_id: planId });
        expect(outcomeOf(ack), `${role}: ${JSON.stringify(ack)}`).toBe(expected(outcomes[i] as Outcome));
        if (!ack.ok && ack.error.code === 'PERMISSION_DENIED')
          expect(ack.error.message).toMatch(/user|owner|read-only/);
      }
    } finally {
      for (const c of clients) c.close();
      await node.close();
    }
  });
});
