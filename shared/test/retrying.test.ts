import { afterEach, describe, expect, it, vi } from 'vitest';
import { PlanHubError, RETRY_STEPS_MS, coalesceRetrying, retryAfterOf, retryWait } from '../src/index.ts';

describe('retrying a live view’s failed read', () => {
  afterEach(() => void vi.useRealTimers());

  it('waits a growing step, the last repeated, or longer when a refusal asks', () => {
    const plain = new Error('timed out');
    expect(RETRY_STEPS_MS.map((_, i) => retryWait(plain, i))).toEqual([...RETRY_STEPS_MS]);
    expect(retryWait(plain, 99)).toBe(RETRY_STEPS_MS.at(-1));
    const refused = new PlanHubError('RESOURCE_EXHAUSTED', 'Too many calls', { retry_after_ms: 2500 });
    expect(retryWait(refused, 0)).toBe(2500);
    expect(retryWait(refused, 3)).toBe(Math.max(2500, RETRY_STEPS_MS[3]!));
    expect(retryAfterOf({ retry_after_ms: 'soon' })).toBe(0);
    expect(retryAfterOf(null)).toBe(0);
  });

  it('runs a failed read again while it should keep trying, and not once it should not or was stopped', async () => {
    vi.useFakeTimers();
    let calls = 0;
    let fail = true;
    let keep = true;
    const errors: unknown[] = [];
    const read = coalesceRetrying(
      () => {
        calls += 1;
        return fail ? Promise.reject(new Error('refused')) : Promise.resolve();
      },
      (err) => errors.push(err),
      () => keep,
    );
    read.run();
    await vi.advanceTimersByTimeAsync(0);
    expect([calls, errors.length]).toEqual([1, 1]);
    await vi.advanceTimersByTimeAsync(RETRY_STEPS_MS[0]!);
    expect([calls, errors.length]).toEqual([2, 2]);
    fail = false;
    await vi.advanceTimersByTimeAsync(RETRY_STEPS_MS[1]!);
    expect([calls, errors.length]).toEqual([3, 2]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toBe(3);

    fail = true;
    keep = false;
    read.run();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toBe(4);

    keep = true;
    read.run();
    await vi.advanceTimersByTimeAsync(0);
    read.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toBe(5);
  });
});
