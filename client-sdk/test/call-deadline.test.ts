import { describe, expect, it } from 'vitest';
import { attemptAt, boundedArgs } from '../src/call-deadline.ts';
import { callTerms } from '../src/call-retry.ts';

describe("an attempt under a caller's deadline", () => {
  const args = { event_types: ['step_unblocked'], timeout: 30 };

  it("waits on the node only within the caller's deadline, and never a negative figure", () => {
    const terms = callTerms('getTaskEvents', args, { timeoutMs: 2000 }, {});
    // A quarter of what is left (at most 1 s) is kept for the empty answer to come back.
    expect(attemptAt('getTaskEvents', args, terms, 0, 0)).toEqual({
      args: { ...args, timeout: 1.5 },
      namedMs: 2000,
      at: 2000,
    });
    expect(attemptAt('getTaskEvents', args, terms, 0, 1000).args.timeout).toBe(0.75);
    // Past the deadline (a reconnect took long): no wait at all, and the timeout still names the caller's 2000 ms.
    expect(attemptAt('getTaskEvents', args, terms, 0, 5000)).toEqual({
      args: { ...args, timeout: 0 },
      namedMs: 2000,
      at: 2000,
    });
  });

  it('keeps the per-attempt deadlines of a call without one', () => {
    const terms = callTerms('getTaskEvents', args, {}, {});
    expect(attemptAt('getTaskEvents', args, terms, 0, 0)).toEqual({ args, namedMs: 45_000, at: 45_000 });
    const start = callTerms('startPlan', {}, {}, {});
    expect(attemptAt('startPlan', {}, start, 0, 0)).toEqual({ args: {}, namedMs: undefined, at: undefined });
  });

  it('asks startPlan for no wait only under a deadline, and leaves a wait=false call and other tools alone', () => {
    expect(boundedArgs('startPlan', {}, { timeoutMs: 1000 })).toEqual({ wait: false });
    expect(boundedArgs('startPlan', { wait: true }, { timeoutMs: 1000 })).toEqual({ wait: false });
    expect(boundedArgs('startPlan', {}, {})).toEqual({});
    expect(boundedArgs('startPlan', { wait: false }, { timeoutMs: 1000 })).toEqual({ wait: false });
    expect(boundedArgs('getPlanStatus', {}, { timeoutMs: 1000 })).toEqual({});
  });
});
