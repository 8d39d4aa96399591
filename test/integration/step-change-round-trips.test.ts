import { connect, type PlanHubClient } from '@planhub/client-sdk';
import type { PlanHubServer, Store } from '@planhub/server';
import { createMemoryStore, createServer } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';

/** A real memory store whose loads and commits are counted (nothing else changes). */
const counted = (store: Store) => {
  const calls = { load: 0, loadCollections: 0, commit: 0 };
  const wrapped: Store = {
    ...store,
    limits: store.limits,
    load: (ws, keys) => (calls.load++, store.load(ws, keys)),
    loadCollections: (ws, read) => (calls.loadCollections++, store.loadCollections(ws, read)),
    commit: (ws, commit) => (calls.commit++, store.commit(ws, commit)),
  };
  return { store: wrapped, calls };
};

describe('a step change’s round trips to the store', () => {
  let server: PlanHubServer;
  let client: PlanHubClient;
  afterEach(async () => {
    client.close();
    await server.close();
  });

  it('reads once and commits once for a plan named by id, and reads twice without one', async () => {
    const { store, calls } = counted(createMemoryStore({ eventRetention: 1000 }));
    server = createServer({ port: 0, logLevel: 'silent', approvalPolicy: 'auto' }, { store });
    client = await connect({ url: (await server.listen()).url, agentId: 'a', workspace: 'ws' });
    const plan = await client.createPlan({ title: 'P', steps: ['one', 'two', 'three'] });
    await client.startPlan({});

    const before = { ...calls };
    await client.setStepStatus({ plan_id: plan.plan_id, step_id: 'step_1', status: 'completed' });
    expect([calls.load - before.load, calls.commit - before.commit]).toEqual([1, 1]);

    const next = { ...calls };
    await client.completeStepWithOutput({ step_id: 'step_2', output: { ok: true } });
    expect([calls.load - next.load, calls.commit - next.commit]).toEqual([2, 1]);
    expect(calls.loadCollections).toBe(next.loadCollections);
  });
});
