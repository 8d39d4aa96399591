import type { PlanHubClient } from '@planhub/client-sdk';
import type { Store } from '@planhub/server';
import { createLogger, createRedisStore } from '@planhub/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_BACKENDS, startCluster, type Cluster } from '../helpers/cluster.ts';
import { endRound, raceCycleAcrossDisjointSteps, type CycleRaceAgents } from '../helpers/cycle-race.ts';
import { startedPlan } from '../helpers/event-log.ts';
import { STRESS, rounds } from '../helpers/stress.ts';
import { storedWaiters } from '../helpers/stored-waiters.ts';

/**
 * docs/invariants.md: invariants 1, 2 and 7, raced across three real server processes on one Redis. Agents are reused
 * across rounds (a fresh plan each round) so the rounds measure the races, not connection setup.
 */
// A hundred rounds of a dozen calls over three processes take 7 s on a quiet 2-core machine and passed 30 s at load
// 10: a deadline that grows with the rounds (PLANHUB_STRESS scales them). Nothing in them is timed.
describe.each(REDIS_BACKENDS)(
  'cross-agent races across three server processes (%s)',
  { timeout: 120_000 * STRESS },
  (backend) => {
    // The same code on a Cluster: fewer rounds there keep the suite's time in bounds (PLANHUB_STRESS scales both).
    const base = backend === 'redis-cluster' ? 25 : 100;
    let cluster: Cluster;
    /** Read-only view of the cluster's documents, for what the API does not show (waiter lists, the graph). */
    let store: Store;
    beforeAll(async () => {
      cluster = await startCluster({ backend, env: { PLANHUB_APPROVAL_POLICY: 'auto', LOG_LEVEL: 'warn' } });
      store = createRedisStore({
        target: cluster.target,
        prefix: cluster.prefix,
        eventRetention: 10_000,
        log: createLogger('silent'),
      });
    });
    afterAll(async () => {
      await store?.close();
      await cluster?.close();
    });

    const agentsOn = (workspace: string, ids: string[]) =>
      Promise.all(ids.map((id, i) => cluster.client(id, { node: i % 3, workspace })));

    /**
     * Rounds rotate over several teams of agents (their own workspaces) so no agent comes near the per-agent call
     * limit: each round makes a dozen calls as fast as the nodes answer.
     */
    const TEAMS = 6;
    const teams = <T>(make: (workspace: string) => Promise<T>, name: string): Promise<T[]> =>
      Promise.all(Array.from({ length: TEAMS }, (_, i) => make(`${name}-${i}`)));

    /** Ends whatever plan the agent has, so it can start a fresh one next round. */
    const finish = async (agent: PlanHubClient) => {
      await agent.completePlan({ status: 'failed', summary: 'round over' }).catch(() => undefined);
    };

    /**
     * The step's step_unblocked events among the newest log entries one call looks at: a round's plan is new, so its
     * events are among the newest. Read from the start of the log instead, a long run (PLANHUB_STRESS=5: ~2,000
     * entries per workspace) ran past one call's scan budget and counted none.
     */
    const unblockedCount = async (reader: PlanHubClient, planId: string, stepId: string) =>
      (
        await reader.getTaskEvents({
          event_types: ['step_unblocked'],
          plan_id: planId,
          step_id: stepId,
          limit: 500,
        })
      ).count;

    const ROUNDS_FAN_IN = rounds(base);
    it(`unblocks a parent step exactly once when its subagents on three nodes finish at the same moment (${ROUNDS_FAN_IN} rounds)`, async () => {
      const SUBS = 4;
      const all = await teams(
        (ws) => agentsOn(ws, ['parent', ...Array.from({ length: SUBS }, (_, i) => `s${i}`)]),
        'fan-in',
      );
      for (let round = 0; round < ROUNDS_FAN_IN; round++) {
        const [parent, ...subs] = all[round % TEAMS] as PlanHubClient[];
        if (!parent) throw new Error('no parent');
        const plans = await Promise.all(subs.map((s) => startedPlan(s, `r${round}`, ['final'])));
        await startedPlan(parent, `r${round}`, ['spawn']);
        const dep = await parent.addDependentStep({
          description: 'merge',
          depends_on: plans.map((p, i) => ({ agent_id: `s${i}`, step_id: 'step_1', plan_id: p.plan_id })),
        });
        expect(dep.status).toBe('blocked');
        const answers = await Promise.all(
          subs.map((s, i) => s.completeStepWithOutput({ step_id: 'step_1', output: { from: `s${i}`, round } })),
        );
        expect(answers.filter((a) => a.unblocked.length > 0)).toHaveLength(1);
        const step = (await parent.getPlanStatus({})).steps.find((s) => s.step_id === dep.step_id);
        expect(step?.status).toBe('pending');
        expect(step?.received_outputs).toEqual(
          Object.fromEntries(subs.map((_, i) => [`s${i}:step_1`, { from: `s${i}`, round }])),
        );
        expect(await unblockedCount(parent, dep.plan_id, dep.step_id)).toBe(1);
        await Promise.all([parent, ...subs].map(finish));
      }
    });

    const ROUNDS_LATE = rounds(base);
    it(`always resolves a dependency added while its target completes on another node (${ROUNDS_LATE} rounds)`, async () => {
      const all = await teams((ws) => agentsOn(ws, ['parent', 'sub']), 'late');
      const outcomes = { blocked: 0, ready: 0 };
      for (let round = 0; round < ROUNDS_LATE; round++) {
        const [parent, sub] = all[round % TEAMS] as [PlanHubClient, PlanHubClient];
        const target = await startedPlan(sub, `r${round}`, ['final']);
        await startedPlan(parent, `r${round}`, ['spawn']);
        const [dep] = await Promise.all([
          parent.addDependentStep({
            description: 'use it',
            depends_on: [{ agent_id: 'sub', step_id: 'step_1', plan_id: target.plan_id }],
          }),
          sub.completeStepWithOutput({ step_id: 'step_1', output: { round } }),
        ]);
        outcomes[dep.status === 'blocked' ? 'blocked' : 'ready'] += 1;
        const step = (await parent.getPlanStatus({})).steps.find((s) => s.step_id === dep.step_id);
        expect(step).toMatchObject({ status: 'pending', received_outputs: { 'sub:step_1': { round } } });
        // Announced exactly once either way: a dependency that had already ended wakes the parent like any other.
        expect(await unblockedCount(parent, dep.plan_id, dep.step_id)).toBe(1);
        await Promise.all([parent, sub].map(finish));
      }
      expect(outcomes.blocked + outcomes.ready).toBe(ROUNDS_LATE);
    });

    const ROUNDS_DUPLICATE = rounds(base);
    it(`keeps one waiter when the same dependency is added twice at once from two nodes (${ROUNDS_DUPLICATE} rounds)`, async () => {
      const all = await teams((ws) => agentsOn(ws, ['parent', 'sub', 'parent']), 'dup');
      for (let round = 0; round < ROUNDS_DUPLICATE; round++) {
        const ws = `dup-${round % TEAMS}`;
        const [parentA, sub, parentB] = all[round % TEAMS] as [PlanHubClient, PlanHubClient, PlanHubClient];
        const target = await startedPlan(sub, `r${round}`, ['final']);
        const own = await startedPlan(parentA, `r${round}`, ['wait here']);
        const dependency = { agent_id: 'sub', step_id: 'step_1' };
        const [a, b] = await Promise.all([
          parentA.addDependentStep({ step_id: 'step_1', depends_on: [dependency, dependency] }),
          parentB.addDependentStep({ step_id: 'step_1', depends_on: [{ ...dependency, plan_id: target.plan_id }] }),
        ]);
        expect([a.blocked_by.length, b.blocked_by.length]).toEqual([1, 1]);
        expect((await storedWaiters(store, ws, `${target.plan_id}:step_1`)).waiters).toEqual([
          { agent_id: 'parent', plan_id: own.plan_id, step_id: 'step_1' },
        ]);
        await sub.completeStepWithOutput({ step_id: 'step_1', output: { round } });
        expect(await unblockedCount(parentA, own.plan_id, 'step_1')).toBe(1);
        await Promise.all([parentA, sub].map(finish));
      }
    });

    const ROUNDS_CYCLE = rounds(base);
    it(`never lets concurrent edges from three nodes close a cycle (${ROUNDS_CYCLE} rounds)`, async () => {
      const ids = ['a', 'b', 'c'];
      const all = await teams((ws) => agentsOn(ws, ids), 'cycle');
      const nodes = new Map<number, string[]>();
      for (let round = 0; round < ROUNDS_CYCLE; round++) {
        const agents = all[round % TEAMS] as [PlanHubClient, PlanHubClient, PlanHubClient];
        const plans = await Promise.all(agents.map((agent) => startedPlan(agent, `r${round}`, ['one'])));
        const team = nodes.get(round % TEAMS) ?? [];
        nodes.set(round % TEAMS, [...team, ...plans.map((p) => `edges:${p.plan_id}:step_1`)]);
        // a→b, b→c, c→a at once: any two are fine, all three would be a cycle.
        const results = await Promise.allSettled(
          agents.map((agent, i) =>
            agent.addDependentStep({
              step_id: 'step_1',
              depends_on: [{ agent_id: ids[(i + 1) % 3] as string, step_id: 'step_1' }],
            }),
          ),
        );
        const refused = results.filter((r) => r.status === 'rejected');
        expect(refused).toHaveLength(1);
        expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'FAILED_PRECONDITION' });
        const statuses = await Promise.all(
          agents.map(async (agent) => (await agent.getPlanStatus({})).steps[0]?.status),
        );
        expect(statuses.filter((s) => s === 'blocked')).toHaveLength(2);
        await Promise.all(agents.map(finish));
      }
      // Every edge was resolved or dropped when the plans ended: the graph is empty again.
      for (let team = 0; team < TEAMS; team++) {
        const sets = nodes.get(team) ?? [];
        const { sets: edges } = await store.loadCollections(`cycle-${team}`, { sets });
        expect(edges.flat()).toEqual([]);
      }
    });

    const ROUNDS_DISJOINT = rounds(base / 2);
    it(`never lets two additions through disjoint steps close a cycle across nodes (${ROUNDS_DISJOINT} rounds)`, async () => {
      const ids = { w: 'w', x: 'x', y: 'y', z: 'z' };
      const all = await teams(async (ws) => {
        const [w, x, y, z] = await agentsOn(ws, Object.values(ids));
        return { w, x, y, z } as CycleRaceAgents;
      }, 'disjoint');
      for (let round = 0; round < ROUNDS_DISJOINT; round++) {
        const agents = all[round % TEAMS] as CycleRaceAgents;
        const outcomes = await raceCycleAcrossDisjointSteps(agents, ids, round);
        expect(outcomes.sort()).toEqual(['FAILED_PRECONDITION', 'ok']);
        await endRound(agents);
      }
    });
  },
);
