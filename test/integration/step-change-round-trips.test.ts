import { connect, type PlanHubClient } from '@planhub/client-sdk';
import type { PlanHubServer } from '@planhub/server';
import { createMemoryStore, createServer } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';
import { readCounting } from '../helpers/read-counting-store.ts';

describe('a step change’s round trips to the store', () => {
  let server: PlanHubServer;
  let client: PlanHubClient;
  afterEach(async () => {
    client.close();
    await server.close();
  });

  it('reads once and commits once, with a plan_id and without one once the node knows the current plan', async () => {
    const { store, reads: calls } = readCounting(createMemoryStore({ eventRetention: 1000 }));
    server = createServer({ port: 0, logLevel: 'silent', approvalPolicy: 'auto' }, { store });
    client = await connect({ url: (await server.listen()).url, agentId: 'a', workspace: 'ws' });
    // Fifty steps: a step change reads the changed step and its plan's header, not the other steps' documents.
    const names = Array.from({ length: 50 }, (_, i) => `step ${i + 1}`);
    const plan = await client.createPlan({ title: 'P', steps: names });
    await client.startPlan({});

    // Nothing has named the current plan on this node yet: the index is read first, then the plan.
    const first = { ...calls };
    await client.setStepStatus({ step_id: 'step_3', status: 'in_progress' });
    expect([calls.load - first.load, calls.commit - first.commit]).toEqual([2, 1]);

    const before = { ...calls };
    await client.setStepStatus({ plan_id: plan.plan_id, step_id: 'step_1', status: 'completed' });
    expect([calls.load - before.load, calls.commit - before.commit]).toEqual([1, 1]);
    // The header, the step and who waits on it (by plan, and by agent and step id for waits registered before the
    // step existed: each a clock document, and the step's own hash); the other steps are only counted by status, from
    // their ranks in the same read.
    expect([calls.keys - before.keys, calls.hashes - before.hashes, calls.ranges - before.ranges]).toEqual([4, 1, 1]);
    expect(calls.loadCollections - before.loadCollections).toBe(0);

    const next = { ...calls };
    await client.completeStepWithOutput({ step_id: 'step_2', output: { ok: true } });
    expect([calls.load - next.load, calls.commit - next.commit]).toEqual([1, 1]);
    expect([calls.keys - next.keys, calls.hashes - next.hashes, calls.loadCollections - next.loadCollections]).toEqual([
      5, 1, 0,
    ]);
    const status = await client.getPlanStatus({});
    expect(status.progress).toMatchObject({ completed: 2, in_progress: 1, total: 50 });
  });

  it('appends a step waiting on a step of another long plan without reading either plan’s other steps', async () => {
    const { store, reads: calls } = readCounting(createMemoryStore({ eventRetention: 1000 }));
    server = createServer({ port: 0, logLevel: 'silent', approvalPolicy: 'auto' }, { store });
    const url = (await server.listen()).url;
    client = await connect({ url, agentId: 'parent', workspace: 'ws' });
    const child = await connect({ url, agentId: 'child', workspace: 'ws' });
    try {
      const names = Array.from({ length: 50 }, (_, i) => `step ${i + 1}`);
      const target = await child.createPlan({ title: 'C', steps: names });
      await child.startPlan({});
      await client.createPlan({ title: 'P', steps: names });
      await client.startPlan({});
      await client.getPlanStatus({});

      const before = { ...calls, stepDocs: calls.stepKeys.length };
      const added = await client.addDependentStep({
        description: 'after the child',
        depends_on: [{ agent_id: 'child', step_id: 'step_7', plan_id: target.plan_id }],
      });
      expect(added.status).toBe('blocked');
      // The one step document read is the target's: neither plan's other steps are read.
      expect(calls.stepKeys.length - before.stepDocs).toBe(1);

      // And it still unblocks with the output when the child's step ends.
      await child.completeStepWithOutput({ step_id: 'step_7', output: { n: 7 } });
      const status = await client.getPlanStatus({});
      const waiting = status.steps.find((s) => s.id === added.step_id);
      expect(waiting?.status).toBe('pending');
      expect(Object.values(waiting?.received_outputs ?? {})).toContainEqual({ n: 7 });
    } finally {
      child.close();
    }
  });
});
