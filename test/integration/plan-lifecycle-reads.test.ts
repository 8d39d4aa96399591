import type { PlanHubClient } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { countedNode, type CountedNode } from '../helpers/counted-node.ts';
import type { StoreFixtureKind } from '../helpers/stores.ts';

const NAMES = Array.from({ length: 50 }, (_, i) => `step ${i + 1}`);

describe.each(['memory', 'file', 'redis'] as StoreFixtureKind[])(
  'starting and ending a plan reads its steps only as far as the call needs them (%s store)',
  (kind) => {
    let node: CountedNode;
    let client: PlanHubClient;
    afterEach(async () => node.close());

    const open = async () => {
      node = await countedNode(kind);
      client = node.client;
    };
    const stepDocsRead = async (call: () => Promise<unknown>) => {
      const before = node.reads.stepKeys.length;
      const answer = await call();
      return { answer, stepDocs: node.reads.stepKeys.length - before };
    };

    it('starts a 50-step plan from its step briefs and answers every step in order', async () => {
      await open();
      const plan = await client.createPlan({ title: 'P', steps: NAMES });
      const { answer, stepDocs } = await stepDocsRead(() => client.startPlan({ plan_id: plan.plan_id }));
      expect(stepDocs).toBe(0);
      expect(answer).toMatchObject({ confirmed: true, status: 'in_progress' });
      expect((answer as { steps: unknown[] }).steps).toEqual(
        NAMES.map((description, i) => ({ step_id: `step_${i + 1}`, sequence: i + 1, description })),
      );
    });

    it('completes a plan from its briefs, names its unfinished steps and leaves every step as it was', async () => {
      await open();
      const plan = await client.createPlan({ title: 'P', steps: NAMES });
      await client.startPlan({});
      await client.setStepStatus({ step_id: 'step_1', status: 'completed', result: 'first done' });
      await client.completeStepWithOutput({ step_id: 'step_2', output: { rows: 2 } });
      await client.setStepStatus({ step_id: 'step_3', status: 'in_progress' });
      const before = await client.getPlanStatus({ plan_id: plan.plan_id });

      const { answer, stepDocs } = await stepDocsRead(() =>
        client.completePlan({ plan_id: plan.plan_id, status: 'completed', summary: 'enough' }),
      );
      expect(stepDocs).toBe(0);
      expect(answer).toMatchObject({
        status: 'completed',
        summary: 'enough',
        progress: { completed: 2, in_progress: 1, pending: 47, total: 50 },
      });
      const unfinished = (answer as { unfinished_steps: Array<{ step_id: string; status: string }> }).unfinished_steps;
      expect(unfinished).toHaveLength(48);
      expect(unfinished[0]).toEqual({ step_id: 'step_3', sequence: 3, description: 'step 3', status: 'in_progress' });

      // The steps' documents were not rewritten from their briefs: results, outputs and times are all still there.
      const after = await client.getPlanStatus({ plan_id: plan.plan_id });
      expect(after.status).toBe('completed');
      expect(after.steps).toEqual(before.steps);
      expect(after.steps[0]).toMatchObject({ result: 'first done', status: 'completed' });
      expect(after.steps[1]).toMatchObject({ output: { rows: 2 }, status: 'completed' });
    });

    it('reads the steps in full to fail a plan, and skips its open ones', async () => {
      await open();
      const plan = await client.createPlan({ title: 'P', steps: NAMES.slice(0, 5) });
      await client.startPlan({});
      await client.setStepStatus({ step_id: 'step_1', status: 'completed', result: 'done' });
      const { answer, stepDocs } = await stepDocsRead(() =>
        client.completePlan({ plan_id: plan.plan_id, status: 'failed' }),
      );
      expect(stepDocs).toBe(5);
      expect(answer).toMatchObject({ status: 'failed', progress: { completed: 1, skipped: 4, total: 5 } });
      const after = await client.getPlanStatus({ plan_id: plan.plan_id });
      expect(after.steps.map((s) => s.status)).toEqual(['completed', 'skipped', 'skipped', 'skipped', 'skipped']);
      expect(after.steps[0]).toMatchObject({ result: 'done' });
    });
  },
);
