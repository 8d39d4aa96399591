import type { Step, StepStatus } from '@planhub/shared';
import { decodeBrief } from '../core/plans/step-brief.ts';
import { NAMED, isOpen, type NamedStep, type StepTally } from '../core/plans/step-tally.ts';
import { hashKeys, zsetKeys } from '../store/keys.ts';
import type { RangeRead, RangeSlice, StoreOp } from '../store/store.ts';

/**
 * A plan's steps as one sorted set, scored `band × 2^32 + sequence` with one band per status: a step's change of
 * status is one ZADD, a status's count and its first steps one range read, whatever the plan's length. Like the
 * briefs, it follows each step's last write (and a fan-in's unblock), so it never needs a check of its own.
 */
const BANDS: readonly StepStatus[] = ['pending', 'in_progress', 'blocked', 'completed', 'failed', 'skipped'];
const BAND = 2 ** 32;

const scoreOf = (step: Pick<Step, 'status' | 'sequence'>): number => BANDS.indexOf(step.status) * BAND + step.sequence;

/** The ranks of steps just written (their status or sequence may have changed). */
export const rankOps = (planId: string, steps: ReadonlyArray<Pick<Step, 'id' | 'status' | 'sequence'>>): StoreOp[] =>
  steps.length === 0
    ? []
    : [
        {
          op: 'zadd',
          key: zsetKeys.stepsByStatus(planId),
          members: Object.fromEntries(steps.map((s) => [s.id, scoreOf(s)])),
        },
      ];

export const unrankOps = (planId: string, stepIds: readonly string[]): StoreOp[] =>
  stepIds.length === 0 ? [] : [{ op: 'zrem', key: zsetKeys.stepsByStatus(planId), members: stepIds }];

/** The same for every plan: one array, so a store can format it once (redis-replies.ts). */
const TALLY_RANGES = BANDS.map((status, band) => ({
  min: band * BAND,
  max: (band + 1) * BAND - 1,
  limit: isOpen(status) ? NAMED[status] : 0,
}));

/** Every band's count, and the first open steps of the open ones with their briefs (their descriptions). */
export const tallyRead = (planId: string): RangeRead => ({
  key: zsetKeys.stepsByStatus(planId),
  values: hashKeys.stepBriefs(planId),
  ranges: TALLY_RANGES,
});

/**
 * The tally the read gives, or undefined when it does not cover the plan's `total` steps (a plan written before
 * the ranks were kept, until each of its steps is written again) or names a step without a readable brief.
 */
export const tallyFromRanks = (slices: readonly RangeSlice[], total: number): StepTally | undefined => {
  const counts = { pending: 0, in_progress: 0, blocked: 0, completed: 0, failed: 0, skipped: 0 };
  const first: StepTally['first'] = { pending: [], in_progress: [], blocked: [] };
  let counted = 0;
  for (const [band, status] of BANDS.entries()) {
    const slice = slices[band];
    if (!slice) return undefined;
    counts[status] = slice.count;
    counted += slice.count;
    if (!isOpen(status)) continue;
    for (const { member, value } of slice.first) {
      const brief = decodeBrief(member, value);
      if (!brief) return undefined;
      const named: NamedStep = { id: member, sequence: brief.sequence, description: brief.description };
      first[status].push(named);
    }
  }
  return counted === total ? { counts, first } : undefined;
};
