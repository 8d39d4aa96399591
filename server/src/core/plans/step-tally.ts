import type { Step, StepStatus } from '@planhub/shared';
import { statusCounts } from '@planhub/shared';

/** An open step as an answer names it. */
export type NamedStep = Pick<Step, 'id' | 'sequence' | 'description'>;

export type OpenStatus = 'pending' | 'in_progress' | 'blocked';

/** How many blocked steps an answer names before it says how many more there are. */
export const BLOCKED_NAMED = 20;

/**
 * How many open steps of each status a tally keeps by name, lowest sequence first: two pending and two in progress,
 * so when one of them changes the next one is still named; the blocked ones an answer lists.
 */
export const NAMED: Readonly<Record<OpenStatus, number>> = { pending: 2, in_progress: 2, blocked: BLOCKED_NAMED };

/**
 * What a step change's answer says about the plan's steps: how many have each status, and the first open steps of
 * each open status. It can be read without reading every step (see tools/step-ranks.ts), so a change of one step of
 * a long plan costs the same as of a short one.
 */
export interface StepTally {
  counts: Record<StepStatus, number>;
  first: Record<OpenStatus, NamedStep[]>;
}

const OPEN: readonly OpenStatus[] = ['pending', 'in_progress', 'blocked'];
export const isOpen = (status: StepStatus): status is OpenStatus => (OPEN as readonly string[]).includes(status);

const named = ({ id, sequence, description }: NamedStep): NamedStep => ({ id, sequence, description });

export const tallyOf = (steps: readonly Step[]): StepTally => {
  const first: StepTally['first'] = { pending: [], in_progress: [], blocked: [] };
  for (const step of steps)
    if (isOpen(step.status) && first[step.status].length < NAMED[step.status]) first[step.status].push(named(step));
  return { counts: statusCounts(steps), first };
};

export const totalOf = (tally: StepTally): number => Object.values(tally.counts).reduce((a, b) => a + b, 0);

/** The tally once `step` has been added after every other step. */
export const withAdded = (tally: StepTally, step: Step): StepTally => {
  const counts = { ...tally.counts, [step.status]: tally.counts[step.status] + 1 };
  const first = { ...tally.first };
  if (isOpen(step.status) && first[step.status].length < NAMED[step.status])
    first[step.status] = [...first[step.status], named(step)];
  return { counts, first };
};

/** The tally once `before` has become `after` (the same step). */
export const withChange = (tally: StepTally, before: Step, after: Step): StepTally => {
  const counts = { ...tally.counts };
  counts[before.status] -= 1;
  counts[after.status] += 1;
  const first = { ...tally.first };
  for (const status of OPEN) {
    const kept = first[status].filter((s) => s.id !== before.id);
    if (after.status === status) {
      const at = kept.findIndex((s) => s.sequence > after.sequence);
      kept.splice(at === -1 ? kept.length : at, 0, named(after));
    }
    first[status] = kept.slice(0, NAMED[status]);
  }
  return { counts, first };
};
