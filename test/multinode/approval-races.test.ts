import type { EventEnvelope } from '@planhub/client-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_BACKENDS, startCluster, type Cluster } from '../helpers/cluster.ts';
import { rounds } from '../helpers/stress.ts';

/**
 * startPlan starts listening only after its commit left the plan awaiting approval, and reads the plan again once it
 * listens (docs/architecture.md, event delivery). Raced across three server processes: a person on another node
 * decides the moment the request is announced, so decisions land before, during and after the waiting call starts
 * to listen. Every call answers the decision made, none waits past it.
 */
describe.each(REDIS_BACKENDS)('approvals decided at once on another node (%s)', (backend) => {
  const base = backend === 'redis-cluster' ? 10 : 30;
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({ backend, env: { PLANHUB_APPROVAL_POLICY: 'user', LOG_LEVEL: 'warn' } });
  });
  afterAll(async () => {
    await cluster?.close();
  });

  /** A person on node 2 who decides each plan of `workspace` the moment its approval is requested. */
  const person = async (workspace: string) => {
    const user = await cluster.client('person', { node: 2, role: 'user', workspace });
    const decided = new Map<string, 'approve' | 'reject'>();
    user.on('event', (event: EventEnvelope) => {
      if (event.event_type !== 'plan_approval_requested' || !event.source_plan_id) return;
      const planId = event.source_plan_id;
      const verdict = decided.size % 2 === 0 ? 'approve' : 'reject';
      decided.set(planId, verdict);
      void (
        verdict === 'approve'
          ? user.plan_approve({ plan_id: planId })
          : user.plan_reject({ plan_id: planId, reason: 'raced' })
      ).catch(() => undefined);
    });
    await user.subscribeToTasks({ agent_id: '*', event_types: ['plan_approval_requested'] });
    return { user, decided };
  };

  it(`answers every decision, whichever side of the listening it lands on (${rounds(base)} rounds)`, async () => {
    for (let round = 0; round < rounds(base); round++) {
      // A workspace per round: the agent's node starts following it in the round itself, as a fresh node would.
      const workspace = `approvals-${round}`;
      const { user, decided } = await person(workspace);
      const agent = await cluster.client('agent', { node: round % 2, workspace });
      try {
        for (let plan = 0; plan < 2; plan++) {
          const { plan_id } = await agent.createPlan({ title: `round ${round}.${plan}`, steps: ['a'] });
          const answer = await agent.startPlan({ plan_id });
          const verdict = decided.get(plan_id);
          expect(verdict, `round ${round}.${plan}: no decision was made`).toBeDefined();
          expect(answer, `round ${round}.${plan}`).toMatchObject(
            verdict === 'approve'
              ? { plan_id, status: 'in_progress', confirmed: true }
              : { plan_id, status: 'rejected', confirmed: false, reason: 'raced' },
          );
          if (verdict === 'approve') await agent.completePlan({ plan_id, status: 'completed' });
        }
      } finally {
        agent.close();
        user.close();
      }
    }
  });
});
