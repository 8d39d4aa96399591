import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { createServer } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';
import { conflictsIn } from '../helpers/concurrent-writers.ts';
import { startedPlan, unblocksOf } from '../helpers/event-log.ts';
import { holdingCommits } from '../helpers/held-commits.ts';
import { storedWaiters } from '../helpers/stored-waiters.ts';
import { storeFixture, type StoreFixtureKind } from '../helpers/stores.ts';
import { rounds } from '../helpers/stress.ts';

const KINDS: readonly StoreFixtureKind[] = ['memory', 'redis', 'redis-cluster', 'file'];
const WAITERS_PER_PLAN = 60;
const OUTPUT = { report: 'done', n: 7 };

const settle = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (err: { code: string; message: string }) => ({ ok: false as const, code: err.code, message: err.message }),
  );

/**
 * Many steps of other agents waiting on one step: registering them must not contend with one another (each commits
 * on its first attempt), only with the target's end, which must still see every registration that committed before
 * it and hand each exactly one step_unblocked. Counted by `planhub_store_conflicts_total`.
 */
describe.each(KINDS)('many steps waiting on one step (%s store)', (kind) => {
  let h: { url: string; client(agentId: string): Promise<PlanHubClient>; close(): Promise<void> };
  let held: ReturnType<typeof holdingCommits>;
  afterEach(async () => h.close());

  /** One node on a fresh store of `kind`, whose commits a test can hold (held-commits.ts). */
  const start = async (waitersPerPlan = WAITERS_PER_PLAN) => {
    const fixture = storeFixture(kind);
    held = holdingCommits(fixture.open());
    const server = createServer(
      {
        port: 0,
        logLevel: 'silent',
        approvalPolicy: 'auto',
        limits: { callsPerSecond: 100_000, waitersPerPlan },
      },
      { store: held.store },
    );
    const { url } = await server.listen();
    const clients: PlanHubClient[] = [];
    h = {
      url,
      async client(agentId) {
        const client = await connect({ url, agentId, workspace: 'ws' });
        clients.push(client);
        return client;
      },
      async close() {
        for (const c of clients) c.close();
        await server.close();
        await fixture.close();
      },
    };
  };
  const conflicts = async () => conflictsIn([await (await fetch(`${h.url}/metrics`)).text()]);
  const waitingAgents = async (n: number, tag: string) => {
    const ids = Array.from({ length: n }, (_, i) => `${tag}-${i}`);
    const agents = await Promise.all(ids.map((id) => h.client(id)));
    return Promise.all(
      agents.map(async (agent, i) => ({ id: ids[i] ?? '', agent, plan: await startedPlan(agent, 'Wait', ['first']) })),
    );
  };
  const waitOn = (agent: PlanHubClient, stepId = 'step_1') =>
    agent.addDependentStep({ description: 'Use the output', depends_on: [{ agent_id: 'target', step_id: stepId }] });

  /** The limit waitersPerPlan holds exactly on `stepId`: the count the ends released is back to zero. */
  const expectWaiterCountReleased = async (stepId: string) => {
    const fresh = await waitingAgents(WAITERS_PER_PLAN + 1, `count-${stepId}`);
    const outcomes = [];
    for (const { agent } of fresh) outcomes.push(await settle(waitOn(agent, stepId)));
    expect(outcomes.slice(0, WAITERS_PER_PLAN).every((o) => o.ok)).toBe(true);
    expect(outcomes.at(-1)).toMatchObject({ ok: false, code: 'RESOURCE_EXHAUSTED' });
  };

  it('registers waits on one step at once without a conflict, and its end unblocks each exactly once', async () => {
    await start();
    const target = await h.client('target');
    await startedPlan(target, 'Produce', ['work', 'more']);
    const waiting = await waitingAgents(Math.min(WAITERS_PER_PLAN, rounds(40)), 'waiter');
    const before = await conflicts();
    const added = await Promise.all(waiting.map(({ agent }) => waitOn(agent)));
    expect(await conflicts()).toBe(before);
    for (const a of added) expect(a).toMatchObject({ status: 'blocked', step_id: 'step_2' });

    const done = await target.completeStepWithOutput({ step_id: 'step_1', output: OUTPUT, result: 'ok' });
    const expected = waiting.map(({ id, plan }) => ({ agent_id: id, plan_id: plan.plan_id, step_id: 'step_2' }));
    const byAgent = (a: { agent_id: string }, b: { agent_id: string }) => (a.agent_id < b.agent_id ? -1 : 1);
    expect([...done.unblocked].sort(byAgent)).toEqual([...expected].sort(byAgent));
    for (const { agent, plan } of waiting) {
      const unblocks = await unblocksOf(agent, plan.plan_id, 'step_2');
      expect(unblocks).toHaveLength(1);
      expect(unblocks[0]?.payload).toMatchObject({ outputs: { 'target:step_1': OUTPUT } });
    }
    // Every released wait left the plan's count: a full complement fits on its next step, and no more.
    await expectWaiterCountReleased('step_2');
  });

  /** Holds the target's end between its reads and its commit (see held-commits.ts) while `meanwhile` runs. */
  const endWhile = async (target: PlanHubClient, meanwhile: () => Promise<unknown>) => {
    const hold = held.holdNext((c) =>
      c.events.some((e) => e.event_type === 'step_completed' && e.source_agent === 'target'),
    );
    const end = target.completeStepWithOutput({ step_id: 'step_1', output: OUTPUT, result: 'ok' });
    await hold.reached;
    await meanwhile();
    hold.release();
    return end;
  };

  it('unblocks waits registered between the end’s reads and its commit, and those after it at once', async () => {
    await start();
    const target = await h.client('target');
    for (let round = 0; round < rounds(3); round++) {
      await startedPlan(target, `Produce ${round}`, ['work']);
      const early = await waitingAgents(6, `early-${round}`);
      const late = await waitingAgents(2, `late-${round}`);
      // Committed while the end is held: the end must re-run and see them.
      await endWhile(target, () => Promise.all(early.map(({ agent }) => waitOn(agent))));
      for (const { agent } of late) expect(await waitOn(agent)).toMatchObject({ status: 'pending' });
      for (const [i, { agent, plan }] of [...early, ...late].entries()) {
        expect(await unblocksOf(agent, plan.plan_id, 'step_2'), `round ${round}, waiter ${i}`).toHaveLength(1);
        const status = await agent.getPlanStatus({});
        expect(status.steps[1]).toMatchObject({ status: 'pending', received_outputs: { 'target:step_1': OUTPUT } });
      }
      await target.completePlan({ status: 'completed' });
    }
  });

  it('keeps the waiter count exact when waits are given up between the end’s reads and its commit', async () => {
    await start();
    const target = await h.client('target');
    await startedPlan(target, 'Produce', ['work', 'more']);
    const waiting = await waitingAgents(10, 'quitter');
    for (const { agent } of waiting) await waitOn(agent);
    // Half the waiting steps are given up (skipped while blocked) while the end is held.
    await endWhile(target, () =>
      Promise.all(
        waiting.slice(0, 5).map(({ agent }) => agent.setStepStatus({ step_id: 'step_2', status: 'skipped' })),
      ),
    );
    for (const { agent, plan } of waiting.slice(0, 5))
      expect(await unblocksOf(agent, plan.plan_id, 'step_2')).toHaveLength(0);
    for (const { agent, plan } of waiting.slice(5))
      expect(await unblocksOf(agent, plan.plan_id, 'step_2')).toHaveLength(1);
    await expectWaiterCountReleased('step_2');
  });

  it('settles waiters stored as one list by an earlier version, beside those registered since', async () => {
    await start();
    const target = await h.client('target');
    const targetPlan = await startedPlan(target, 'Produce', ['work', 'more']);
    const earlier = await waitingAgents(3, 'earlier');
    for (const { agent } of earlier) await waitOn(agent);
    // Rewritten as round 13 stored them: one `waiters:` document holding the list, no hash.
    const node = `${targetPlan.plan_id}:step_1`;
    const [doc] = await held.store.load('ws', [`waiters:${node}`]);
    const { hashes } = await held.store.loadCollections('ws', { hashes: [`waiters:${node}`] });
    const listed = Object.keys(hashes[0] ?? {}).map((field) => {
      const [agent_id, plan_id, step_id] = JSON.parse(field) as string[];
      return { agent_id, plan_id, step_id };
    });
    expect(listed).toHaveLength(3);
    const rewritten = await held.store.commit('ws', {
      reads: [{ key: `waiters:${node}`, version: doc?.version ?? 0 }],
      writes: [{ key: `waiters:${node}`, value: { waiters: listed } }],
      ops: [{ op: 'del', kind: 'hash', key: `waiters:${node}` }],
      events: [],
    });
    expect(rewritten.ok).toBe(true);
    // One of them gives up (it leaves the list), and one more registers (in the hash).
    const [quitter, ...stayed] = earlier;
    await quitter?.agent.setStepStatus({ step_id: 'step_2', status: 'skipped' });
    const [later] = await waitingAgents(1, 'later');
    if (!later || !quitter) throw new Error('agents missing');
    await waitOn(later.agent);
    const done = await target.completeStepWithOutput({ step_id: 'step_1', output: OUTPUT, result: 'ok' });
    expect(done.unblocked.map((w) => w.agent_id).sort()).toEqual([...stayed, later].map((w) => w.id).sort());
    for (const { agent, plan } of [...stayed, later])
      expect(await unblocksOf(agent, plan.plan_id, 'step_2')).toHaveLength(1);
    expect(await unblocksOf(quitter.agent, quitter.plan.plan_id, 'step_2')).toHaveLength(0);
    expect((await held.store.load('ws', [`waiters:${node}`]))[0]).toEqual({ value: undefined, version: 0 });
    await expectWaiterCountReleased('step_2');
  });

  it('answers INTERNAL naming the hash when a waiter entry is corrupt, and changes nothing', async () => {
    await start();
    const target = await h.client('target');
    const targetPlan = await startedPlan(target, 'Produce', ['work']);
    const node = `${targetPlan.plan_id}:step_1`;
    const corrupt = await held.store.commit('ws', {
      reads: [],
      writes: [],
      ops: [
        { op: 'hset', key: `waiters:${node}`, fields: { '["only two", "parts"]': '1' } },
        // As a registration writes it: with its clock.
        { op: 'bump', key: `waiters:${node}` },
      ],
      events: [],
    });
    expect(corrupt.ok).toBe(true);
    await expect(
      target.completeStepWithOutput({ step_id: 'step_1', output: OUTPUT, result: 'ok' }),
    ).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining(`waiters:${node} is corrupt`) as string,
    });
    const [step] = (await target.getPlanStatus({})).steps;
    expect(step?.status).toBe('pending');
    expect(step?.output).toBeUndefined();
  });

  it('holds waitersPerPlan exactly when registrations race past it, refusing the rest whole', async () => {
    const limit = 5;
    await start(limit);
    const target = await h.client('target');
    const targetPlan = await startedPlan(target, 'Produce', ['work']);
    const waiting = await waitingAgents(limit * 3, 'racer');
    const before = await conflicts();
    const outcomes = await Promise.all(waiting.map(({ agent }) => settle(waitOn(agent))));
    expect(await conflicts()).toBe(before);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(limit);
    for (const o of outcomes.filter((x) => !x.ok))
      expect(o).toMatchObject({
        code: 'RESOURCE_EXHAUSTED',
        message: `Plan ${targetPlan.plan_id} already has ${limit} waiting steps from other plans; 1 more would exceed the limit waitersPerPlan (${limit}). Wait on fewer of its steps, or wait until some of them end.`,
      });
    // A refused call wrote nothing: its plan still has its one step.
    for (const [i, { agent }] of waiting.entries())
      expect((await agent.getPlanStatus({})).steps).toHaveLength(outcomes[i]?.ok ? 2 : 1);
    const done = await target.completeStepWithOutput({ step_id: 'step_1', output: OUTPUT, result: 'ok' });
    expect(done.unblocked).toHaveLength(limit);
  });

  it('leaves nothing stored for a step whose waiters all gave up before it ended', async () => {
    await start();
    const target = await h.client('target');
    const targetPlan = await startedPlan(target, 'Produce', ['work']);
    const waiting = await waitingAgents(3, 'quitter');
    for (const { agent } of waiting) await waitOn(agent);
    for (const { agent } of waiting) await agent.setStepStatus({ step_id: 'step_2', status: 'skipped' });
    const node = `${targetPlan.plan_id}:step_1`;
    // The clock stays while the step may still get waiters; its end settles it.
    expect(await storedWaiters(held.store, 'ws', node)).toMatchObject({ waiters: [] });
    const done = await target.completeStepWithOutput({ step_id: 'step_1', output: OUTPUT, result: 'ok' });
    expect(done.unblocked).toEqual([]);
    expect(await storedWaiters(held.store, 'ws', node)).toEqual({ waiters: [], version: 0 });
  });
});
