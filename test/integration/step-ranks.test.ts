import type { PlanHubClient } from '@planhub/client-sdk';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { countedNode, type CountedNode } from '../helpers/counted-node.ts';
import { startHarness, type Harness, type HarnessStoreKind } from '../helpers/servers.ts';
import { rounds } from '../helpers/stress.ts';
import type { StoreFixtureKind } from '../helpers/stores.ts';

type Status = 'in_progress' | 'completed' | 'failed' | 'skipped';
const CHANGES: readonly Status[] = ['in_progress', 'completed', 'failed', 'skipped'];

interface StepAnswer {
  total_steps: number;
  progress: unknown;
  instruction: string;
}

/** The answer's counts and the step it names next, checked against the plan as getPlanStatus reads it whole. */
const expectAnswerOfWholePlan = async (client: PlanHubClient, answer: StepAnswer) => {
  const status = await client.getPlanStatus({});
  expect(answer.progress).toEqual(status.progress);
  expect(answer.total_steps).toBe(status.steps.length);
  const pending = status.steps.find((s) => s.status === 'pending');
  const inProgress = status.steps.find((s) => s.status === 'in_progress');
  const named = /next step: .* \((step_\d+)\)\.$|Proceed with: (step_\d+):|Continue with: (step_\d+):/.exec(
    answer.instruction,
  );
  if (named) expect(named[1] ?? named[2] ?? named[3]).toBe(pending?.id ?? inProgress?.id);
  else if (!answer.instruction.startsWith('Step is now in progress'))
    expect(pending, `"${answer.instruction}" names no step`).toBeUndefined();
};

describe.each(['memory', 'file', 'redis'] as HarnessStoreKind[])(
  'a step change of a long plan, counted without reading its other steps (%s store)',
  (kind) => {
    let h: Harness;
    afterEach(() => h.close());

    it('answers what the whole plan says, through unblocks by other agents and steps changed at random', async () => {
      h = await startHarness(kind, { approvalPolicy: 'auto', limits: { callsPerSecond: 100_000 } });
      const owner = await h.client('owner');
      const helper = await h.client('helper');
      const helperPlan = await helper.createPlan({ title: 'H', steps: ['part 1', 'part 2', 'part 3'] });
      await helper.startPlan({});
      await owner.createPlan({ title: 'P', steps: Array.from({ length: 30 }, (_, i) => `step ${i + 1}`) });
      await owner.startPlan({});
      // Three blocked steps, each unblocked by the helper's fan-in partway through the run.
      for (let i = 0; i < 3; i++)
        await owner.addDependentStep({
          description: `after part ${i + 1}`,
          depends_on: [{ agent_id: 'helper', step_id: `step_${i + 1}`, plan_id: helperPlan.plan_id }],
        });
      const total = 33;
      const n = rounds(60);
      // A fixed seed, so a failing run can be repeated.
      const changes = fc.sample(
        fc.record({ step: fc.integer({ min: 1, max: total }), status: fc.constantFrom(...CHANGES) }),
        { numRuns: n, seed: 11 },
      );
      let answered = 0;
      for (let round = 0; round < n; round++) {
        if (round % Math.ceil(n / 4) === 1 && round / Math.ceil(n / 4) < 3)
          await helper.completeStepWithOutput({
            step_id: `step_${1 + Math.floor(round / Math.ceil(n / 4))}`,
            output: {},
          });
        const { step, status } = changes[round] as { step: number; status: Status };
        const step_id = `step_${step}`;
        const answer = await owner.setStepStatus({ step_id, status }).catch((err: { code?: string }) => {
          // A transition the step's state does not allow (a blocked step completed by hand, say) is refused.
          if (err.code === 'FAILED_PRECONDITION') return undefined;
          throw err;
        });
        if (!answer) continue;
        answered += 1;
        await expectAnswerOfWholePlan(owner, answer);
      }
      expect(answered).toBeGreaterThan(n / 2);
      const finalStatus = await owner.getPlanStatus({});
      expect(finalStatus.steps.filter((s) => s.id.startsWith('step_3') && s.status === 'blocked')).toEqual([]);
    });

    it('appends steps, waiting or not, answering and ordering as the whole plan says', async () => {
      h = await startHarness(kind, { approvalPolicy: 'auto', limits: { callsPerSecond: 100_000 } });
      const owner = await h.client('owner');
      const helper = await h.client('helper');
      const helperPlan = await helper.createPlan({ title: 'H', steps: ['part 1'] });
      await helper.startPlan({});
      await owner.createPlan({ title: 'P', steps: ['one', 'two', 'three'] });
      await owner.startPlan({});
      await owner.setStepStatus({ step_id: 'step_1', status: 'completed' });
      const added = await owner.addStep({ description: 'four' });
      expect(added).toMatchObject({ step_id: 'step_4', sequence: 4, total_steps: 4 });
      expect(added.message).toContain('at position 4 of 4');
      await expectAnswerOfWholePlan(owner, added);
      const waiting = await owner.addDependentStep({
        description: 'five, after the helper',
        depends_on: [{ agent_id: 'helper', step_id: 'step_1', plan_id: helperPlan.plan_id }],
      });
      expect(waiting).toMatchObject({ step_id: 'step_5', status: 'blocked', total_steps: 5 });
      expect(waiting.progress).toEqual((await owner.getPlanStatus({})).progress);
      // Appends racing each other: each commits or re-runs on the header, none is lost or numbered twice.
      const racing = await Promise.all(
        Array.from({ length: 6 }, (_, i) => owner.addStep({ description: `raced ${i}` })),
      );
      expect(new Set(racing.map((a) => a.step_id)).size).toBe(6);
      const status = await owner.getPlanStatus({});
      expect(status.steps.map((s) => s.sequence)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
      expect(status.steps.slice(0, 5).map((s) => s.description)).toEqual([
        'one',
        'two',
        'three',
        'four',
        'five, after the helper',
      ]);
      expect(status.progress).toMatchObject({ completed: 1, pending: 9, blocked: 1, total: 11 });
      // The step added waiting still unblocks, and a change of it is counted as the whole plan says.
      await helper.completeStepWithOutput({ step_id: 'step_1', output: { done: true } });
      const ended = await owner.setStepStatus({ step_id: 'step_5', status: 'completed' });
      await expectAnswerOfWholePlan(owner, ended);
    });

    it('keeps the count right when the owner’s changes of one plan race each other', async () => {
      h = await startHarness(kind, { approvalPolicy: 'auto', limits: { callsPerSecond: 100_000 } });
      const owner = await h.client('owner');
      const steps = rounds(40);
      const plan = await owner.createPlan({
        title: 'P',
        steps: Array.from({ length: steps }, (_, i) => `step ${i + 1}`),
      });
      await owner.startPlan({});
      const answers = await Promise.all(
        Array.from({ length: steps }, (_, i) =>
          owner.setStepStatus({ plan_id: plan.plan_id, step_id: `step_${i + 1}`, status: 'completed' }),
        ),
      );
      // Each answer counts at least its own completion; the last one committed counts all of them.
      for (const a of answers) expect(a.progress.completed).toBeGreaterThanOrEqual(1);
      const last = await owner.setStepStatus({ plan_id: plan.plan_id, step_id: 'step_1', status: 'in_progress' });
      expect(last.progress).toMatchObject({ completed: steps - 1, in_progress: 1, pending: 0, total: steps });
      await expectAnswerOfWholePlan(owner, last);
    });
  },
);

describe.each(['memory', 'file', 'redis'] as StoreFixtureKind[])(
  'a plan stored before its steps were ranked (%s store)',
  (kind) => {
    let node: CountedNode;
    afterEach(async () => node.close());

    it('is read through its briefs, answered the same, and ranked step by step as they are written', async () => {
      node = await countedNode(kind);
      const { store, reads, client } = node;
      const plan = await client.createPlan({ title: 'P', steps: ['one', 'two', 'three'] });
      await client.startPlan({});
      // What an earlier version left: the plan's documents and briefs, and no ranks (the key step-ranks.ts writes).
      const wiped = await store.commit('ws', {
        reads: [],
        writes: [],
        ops: [{ op: 'del', kind: 'zset', key: `steps-by-status:${plan.plan_id}` }],
        events: [],
      });
      expect(wiped.ok).toBe(true);
      const briefReads = () => reads.hashKeys.filter((k) => k.startsWith('steps:')).length;
      const change = async (step_id: string, status: Status) => {
        const briefReads = () => reads.hashKeys.filter((k) => k.startsWith('steps:')).length;
        const before = briefReads();
        const answer = await client.setStepStatus({ plan_id: plan.plan_id, step_id, status });
        await expectAnswerOfWholePlan(client, answer);
        return briefReads() - before;
      };
      // Until every step is ranked again, a change reads the briefs (one whole hash) to count; then only ranks.
      expect(await change('step_1', 'completed')).toBe(1);
      expect(await change('step_2', 'in_progress')).toBe(1);
      expect(await change('step_3', 'skipped')).toBe(1);
      const ranges = reads.ranges;
      expect(await change('step_2', 'completed')).toBe(0);
      expect(reads.ranges - ranges).toBe(1);
      // Appending counts from the ranks too, and the step appended is ranked.
      const appendStart = briefReads();
      const added = await client.addStep({ description: 'four' });
      expect(briefReads() - appendStart).toBe(0);
      await expectAnswerOfWholePlan(client, added);
      expect(await change('step_4', 'completed')).toBe(0);
      expect((await client.getPlanStatus({})).progress).toMatchObject({ completed: 3, skipped: 1, total: 4 });
    });
  },
);
