import type { Step, StepStatus } from '@planhub/shared';
import { progressOf, progressOfCounts } from '@planhub/shared';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { instructionFor, nextInstruction } from '../src/core/plans/instruction.ts';
import { newPlan } from '../src/core/plans/plan-factory.ts';
import { changeStepStatus, type SettableStatus } from '../src/core/plans/step-status.ts';
import { BLOCKED_NAMED, tallyOf, withChange } from '../src/core/plans/step-tally.ts';

const NOW = '2026-01-01T00:00:00.000Z';
const STATUSES: StepStatus[] = ['pending', 'in_progress', 'completed', 'failed', 'skipped', 'blocked'];

const stepsOf = (statuses: readonly StepStatus[]): Step[] =>
  statuses.map((status, i) => ({
    id: `step_${i + 1}`,
    step_id: `step_${i + 1}`,
    sequence: i + 1,
    description: `do part ${i + 1}`,
    status,
  }));

describe('a tally of a plan’s steps', () => {
  it('after one step’s change, counts and names what counting every step again gives', () => {
    // A plan of 1–40 steps, one step of it that is not blocked (a blocked step is read whole), and what it becomes.
    const changes = fc
      .array(fc.constantFrom(...STATUSES), { minLength: 1, maxLength: 40 })
      .filter((statuses) => statuses.some((s) => s !== 'blocked'))
      .chain((statuses) =>
        fc.record({
          steps: fc.constant(stepsOf(statuses)),
          at: fc.constantFrom(...statuses.flatMap((s, i) => (s === 'blocked' ? [] : [i]))),
          to: fc.constantFrom('in_progress', 'completed', 'failed', 'skipped'),
        }),
      );
    fc.assert(
      fc.property(changes, ({ steps, at, to }) => {
        const before = steps[at] as Step;
        const after: Step = { ...before, status: to };
        const changed = steps.map((s, i) => (i === at ? after : s));
        const incremental = withChange(tallyOf(steps), before, after);
        const recounted = tallyOf(changed);
        expect(incremental.counts).toEqual(recounted.counts);
        expect(incremental.first.pending[0]).toEqual(recounted.first.pending[0]);
        expect(incremental.first.in_progress[0]).toEqual(recounted.first.in_progress[0]);
        expect(incremental.first.blocked).toEqual(recounted.first.blocked);
        expect(progressOfCounts(incremental.counts)).toEqual(progressOf(changed));
        expect(instructionFor(incremental, after)).toBe(nextInstruction({ ...plan(), steps: changed }, after));
      }),
      { numRuns: 500 },
    );
  });

  it('names the first blocked steps and counts the rest', () => {
    const steps = stepsOf(Array.from({ length: BLOCKED_NAMED + 5 }, () => 'blocked'));
    const text = instructionFor(tallyOf(steps));
    expect(text).toContain(`step_1, step_2,`);
    expect(text).toContain(`step_${BLOCKED_NAMED} and 5 more) are blocked`);
    expect(text).not.toContain(`step_${BLOCKED_NAMED + 1}`);
    expect(instructionFor(tallyOf(steps.slice(0, 2)))).toContain('(step_1, step_2) are blocked');
  });

  it('gives a step change read one step alone the answer of the whole plan', () => {
    const whole = { ...plan(), status: 'in_progress' as const, steps: stepsOf(['completed', 'pending', 'pending']) };
    const change = { step_id: 'step_2', status: 'completed' as SettableStatus };
    const full = changeStepStatus(whole, change, NOW);
    const alone = changeStepStatus({ ...whole, steps: [whole.steps[1] as Step] }, change, NOW, tallyOf(whole.steps));
    expect(alone.instruction).toBe(full.instruction);
    expect(alone.instruction).toContain('next step: do part 3 (step_3)');
    expect(alone.tally).toEqual(full.tally);
    expect(progressOfCounts(alone.tally.counts)).toMatchObject({ completed: 2, pending: 1, total: 3 });
  });
});

const plan = () =>
  newPlan({
    plan_id: 'p1',
    workspace: 'ws',
    agent_id: 'a',
    title: 'T',
    dialect: '000',
    steps: [{ description: 'x' }],
    now: NOW,
  });
