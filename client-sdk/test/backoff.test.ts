import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../src/backoff.ts';

describe('backoff', () => {
  const options = { baseMs: 100, maxMs: 5000 };

  it('doubles the ceiling each attempt up to the maximum', () => {
    const ceiling = (attempt: number) => backoffDelay(attempt, options, () => 0.999999);
    expect([0, 1, 2, 3, 6, 7, 40].map(ceiling)).toEqual([99, 199, 399, 799, 4999, 4999, 4999]);
  });

  it('spreads retries with full jitter', () => {
    expect(backoffDelay(5, options, () => 0)).toBe(0);
    expect(backoffDelay(5, options, () => 0.5)).toBe(1600);
  });
});
