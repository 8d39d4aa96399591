import { describe, expect, it } from 'vitest';
import { attemptTerms, callTerms } from '../src/call-retry.ts';

describe('a long-poll sent again', () => {
  const terms = callTerms('getTaskEvents', { event_types: ['step_unblocked'], timeout: 12 }, {}, {});

  it('waits only what is left of the wait, with a deadline shorter by what was spent', () => {
    expect(terms.timeoutMs).toBe(15_000 + 12_000);
    const args = { event_types: ['step_unblocked'], timeout: 12 };
    expect(attemptTerms('getTaskEvents', args, terms, 0)).toEqual({ args, timeoutMs: 27_000 });
    // The node died 10 s into the wait: the retry waits 2 s more, not 12.
    expect(attemptTerms('getTaskEvents', args, terms, 10_000)).toEqual({
      args: { event_types: ['step_unblocked'], timeout: 2 },
      timeoutMs: 17_000,
    });
    expect(attemptTerms('getTaskEvents', args, terms, 10_250).args.timeout).toBe(1.75);
    // Past the wait, a retry only reads what is there.
    expect(attemptTerms('getTaskEvents', args, terms, 40_000)).toEqual({
      args: { event_types: ['step_unblocked'], timeout: 0 },
      timeoutMs: 15_000,
    });
  });

  it('leaves other calls, and a read that does not wait, as they were', () => {
    const read = { event_types: ['step_completed'] };
    const readTerms = callTerms('getTaskEvents', read, {}, {});
    expect(attemptTerms('getTaskEvents', read, readTerms, 5_000)).toEqual({ args: read, timeoutMs: 15_000 });
    const step = { step_id: 'step_1', status: 'completed' as const };
    const stepTerms = callTerms('setStepStatus', step, {}, {});
    expect(attemptTerms('setStepStatus', step, stepTerms, 5_000)).toEqual({ args: step, timeoutMs: 15_000 });
  });
});
