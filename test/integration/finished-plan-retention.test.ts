import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { createServer, loadPlan, savePlan, transact, type PlanHubServer, type Store } from '@planhub/server';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { startedPlan } from '../helpers/event-log.ts';
import { refusal } from '../helpers/refusals.ts';
import { storeFixture, type StoreFixture } from '../helpers/stores.ts';

const KINDS = ['memory', 'redis', 'file'] as const;
const WS = 'ws';

interface Node {
  server: PlanHubServer;
  client(agentId: string): Promise<PlanHubClient>;
  close(): Promise<void>;
}

/** A node on `store` that keeps `kept` finished plans per agent; several nodes may share one store, one at a time. */
const startNode = async (store: Store, kept: number): Promise<Node> => {
  const server = createServer(
    { port: 0, logLevel: 'silent', approvalPolicy: 'auto', finishedPlansKept: kept },
    { store },
  );
  const { url } = await server.listen();
  const clients: PlanHubClient[] = [];
  return {
    server,
    async client(agentId) {
      const client = await connect({ url, agentId, workspace: WS });
      clients.push(client);
      return client;
    },
    async close() {
      for (const c of clients) c.close();
      await server.close();
    },
  };
};

/** A plan created, started, every step completed and the plan completed. */
const finishedPlan = async (client: PlanHubClient, title: string, steps = ['one', 'two']) => {
  const plan = await startedPlan(client, title, steps);
  for (let i = 1; i <= steps.length; i++) await client.setStepStatus({ step_id: `step_${i}`, status: 'completed' });
  await client.completePlan({ status: 'completed' });
  return plan.plan_id;
};

/** Everything the store may hold for a plan's steps 1..n, read through the store's own interface. */
const storedParts = async (store: Store, planId: string, steps = 2) => {
  const ids = Array.from({ length: steps }, (_, i) => `step_${i + 1}`);
  const nodes = ids.map((s) => `${planId}:${s}`);
  const docs = await store.load(WS, [
    `plan:${planId}`,
    ...ids.map((s) => `step:${planId}:${s}`),
    ...nodes.map((n) => `waiters:${n}`),
  ]);
  const { sets, hashes, counters } = await store.loadCollections(WS, {
    sets: [...nodes.flatMap((n) => [`out:${n}`, `edges:${n}`]), `waiters-on:${planId}`],
    hashes: [`steps:${planId}`, ...nodes.flatMap((n) => [`recv:${n}`, `waiters:${n}`])],
    counters: [`waiters-on:${planId}`],
  });
  return {
    docs: docs.filter((d) => d.version > 0).length,
    sets: sets.flat().length,
    hashFields: hashes.reduce((n, h) => n + Object.keys(h).length, 0),
    counters: counters.filter((c) => c !== 0).length,
  };
};

const NOTHING = { docs: 0, sets: 0, hashFields: 0, counters: 0 };

/** Every Redis key of the fixture (SCAN of its prefix), to show no key of a removed plan is left. */
const redisKeys = async (fixture: StoreFixture): Promise<string[]> => {
  const redis = new Redis(inject('redisUrl'));
  try {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${fixture.prefix}:*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    return keys;
  } finally {
    redis.disconnect();
  }
};

const indexOf = async (store: Store, agentId: string) =>
  (await store.load(WS, [`agent:${agentId}`]))[0]?.value as { plans: Array<{ plan_id: string; finished: boolean }> };

describe.each(KINDS)('retention of finished plans (%s store)', (kind) => {
  let fixture: StoreFixture;
  const nodes: Node[] = [];
  afterEach(async () => {
    for (const n of nodes.splice(0)) await n.close();
    await fixture.close();
  });
  const open = async (kept: number, store?: Store) => {
    const node = await startNode(store ?? fixture.open(), kept);
    nodes.push(node);
    return node;
  };

  it('deletes every stored part of the finished plans past the kept ones and answers NOT_FOUND for them', async () => {
    fixture = storeFixture(kind);
    const node = await open(2);
    const { store } = node.server.services;
    const a = await node.client('a');
    const b = await node.client('b');

    // A seed-004 plan in a working_dir (listed in that folder's hash), and one that waited on another agent.
    const indexed = await a.create_plan({ title: 'Indexed', steps: [{ description: 'only' }], working_dir: 'repo' });
    await a.update_plan({ plan_id: indexed.plan_id, step_index: 0, status: 'completed' });
    const theirs = await startedPlan(b, 'Theirs', ['work']);
    const waited = await startedPlan(a, 'Waited', ['first', 'waits']);
    await a.addDependentStep({ step_id: 'step_2', depends_on: [{ agent_id: 'b', step_id: 'step_1' }] });
    await b.completeStepWithOutput({ step_id: 'step_1', output: { ok: true } });
    await a.setStepStatus({ step_id: 'step_1', status: 'completed' });
    await a.setStepStatus({ step_id: 'step_2', status: 'completed' });
    await a.completePlan({ status: 'completed' });
    const older = [indexed.plan_id, waited.plan_id];
    for (let i = 0; i < 2; i++) older.push(await finishedPlan(a, `Older ${i}`));
    const keptIds = [await finishedPlan(a, 'Kept 1'), await finishedPlan(a, 'Kept 2')];

    expect((await indexOf(store, 'a')).plans.map((p) => p.plan_id)).toEqual(keptIds);
    for (const planId of older) expect(await storedParts(store, planId)).toEqual(NOTHING);
    expect((await store.loadCollections(WS, { hashes: ['workdir:repo'] })).hashes).toEqual([{}]);
    for (const planId of keptIds) expect((await storedParts(store, planId)).docs).toBe(3);
    // The other agent's plan, whose step the removed plan waited on, is untouched.
    expect((await b.getPlanStatus({ plan_id: theirs.plan_id })).steps[0]?.status).toBe('completed');
    if (kind === 'redis') {
      const keys = await redisKeys(fixture);
      expect(keys.filter((k) => older.some((id) => k.includes(id)))).toEqual([]);
      expect(keys.filter((k) => keptIds.some((id) => k.includes(id))).length).toBeGreaterThan(0);
    }

    const gone = await refusal(a.getPlanStatus({ plan_id: waited.plan_id }));
    expect(gone.code).toBe('NOT_FOUND');
    expect(gone.message).toMatch(/finished and was removed.*getTaskEvents with plan_id/s);
    expect(
      (await refusal(a.setStepStatus({ plan_id: waited.plan_id, step_id: 'step_1', status: 'completed' }))).code,
    ).toBe('NOT_FOUND');
    // Seed 004 keeps its own wording for a plan it cannot find.
    expect(await refusal(a.get_plan({ plan_id: indexed.plan_id }))).toEqual({
      code: 'NOT_FOUND',
      message: `Plan not found: ${indexed.plan_id}`,
    });
    const history = await a.getTaskEvents({ plan_id: waited.plan_id, limit: 50 });
    expect(history.events.map((e) => e.event_type)).toContain('plan_completed');
  });

  /** Agent b's step waiting on a's step_2, which a's plan (keeping 2 finished plans) still has open. */
  const leftOpenWait = async () => {
    fixture = storeFixture(kind);
    const node = await open(2);
    const a = await node.client('a');
    const b = await node.client('b');
    const left = await startedPlan(a, 'Left open', ['done', 'left open']);
    const waiting = await startedPlan(b, 'Waiting', ['needs a']);
    await b.addDependentStep({ step_id: 'step_1', depends_on: [{ agent_id: 'a', step_id: 'step_2' }] });
    await a.setStepStatus({ step_id: 'step_1', status: 'completed' });
    return { store: node.server.services.store, a, b, left, waiting };
  };

  it('resolves as skipped a wait on a step left open by a completed plan, and its removal delivers nothing again', async () => {
    const { store, a, b, left, waiting } = await leftOpenWait();
    expect((await b.getPlanStatus({})).steps[0]?.status).toBe('blocked');
    // Allowed with a warning: step_2 stays pending, and can no longer change, so b's wait on it ends with the plan
    // (until round 23 only when retention removed the plan).
    await a.completePlan({ status: 'completed' });
    const released = {
      status: 'pending',
      blocked_by: [],
      received_outputs: { 'a:step_2': { status: 'skipped', result: 'plan completed', error: null } },
    };
    expect((await b.getPlanStatus({})).steps[0]).toMatchObject(released);

    await finishedPlan(a, 'Next 1');
    await finishedPlan(a, 'Next 2');

    expect(await storedParts(store, left.plan_id)).toEqual(NOTHING);
    expect((await b.getPlanStatus({})).steps[0]).toMatchObject(released);
    const unblocked = await b.getTaskEvents({ plan_id: waiting.plan_id, event_types: ['step_unblocked'] });
    expect(unblocked.events).toHaveLength(1);
    // b's step is no longer counted as a waiter anywhere, and its own wait state is gone.
    expect(await storedParts(store, waiting.plan_id, 1)).toMatchObject({ sets: 0, counters: 0 });
  });

  it('releases, at removal, the waiters of a step an earlier version left open when it completed the plan', async () => {
    const { store, a, b, left, waiting } = await leftOpenWait();
    // Completed as versions before round 23 completed it: the plan ends, its open step keeps its waiters.
    await transact(store, WS, async (tx) => {
      const plan = await loadPlan(tx, left.plan_id);
      await savePlan(tx, { ...plan, status: 'completed', completed_at: new Date().toISOString() });
    });
    expect((await b.getPlanStatus({})).steps[0]).toMatchObject({ status: 'blocked' });

    await finishedPlan(a, 'Next 1');
    await finishedPlan(a, 'Next 2');

    expect(await storedParts(store, left.plan_id)).toEqual(NOTHING);
    expect((await b.getPlanStatus({})).steps[0]).toMatchObject({
      status: 'pending',
      blocked_by: [],
      received_outputs: { 'a:step_2': { status: 'skipped' } },
    });
    const unblocked = await b.getTaskEvents({ plan_id: waiting.plan_id, event_types: ['step_unblocked'] });
    expect(unblocked.events).toHaveLength(1);
    expect(await storedParts(store, waiting.plan_id, 1)).toMatchObject({ sets: 0, counters: 0 });
  });

  it('prunes an index that grew before retention applied on its next write, and never an unfinished plan', async () => {
    fixture = storeFixture(kind);
    const before = await open(1000);
    const { store } = before.server.services;
    const a = await before.client('a');
    // Seed 004 lets an agent keep several plans open: the oldest entry of the index stays unfinished throughout.
    const indexed = async (title: string, finish: boolean) => {
      const { plan_id } = await a.create_plan({ title, steps: [{ description: 'only' }] });
      if (finish) await a.update_plan({ plan_id, step_index: 0, status: 'completed' });
      return plan_id;
    };
    const unfinished = await indexed('Open from the start', false);
    const finished: string[] = [];
    for (let i = 0; i < 8; i++) finished.push(await indexed(`Old ${i}`, true));
    expect((await indexOf(store, 'a')).plans).toHaveLength(9);
    await before.close();
    nodes.splice(0);

    const after = await open(3, store);
    const again = await after.client('a');
    const fresh = await again.create_plan({ title: 'Fresh', steps: [{ description: 'new' }] });
    const index = (await indexOf(store, 'a')).plans;
    expect(index.map((p) => p.plan_id)).toEqual([unfinished, ...finished.slice(-3), fresh.plan_id]);
    for (const planId of finished.slice(0, 5)) expect(await storedParts(store, planId, 1)).toEqual(NOTHING);
    expect((await again.get_plan({ plan_id: unfinished })).title).toBe('Open from the start');
  });
});
