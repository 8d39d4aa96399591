import { describe, expect, it } from 'vitest';
import { isoClock } from '../src/iso-clock.ts';

describe('the ISO clock', () => {
  it('gives the time of each reading, formatting a millisecond once', () => {
    let ms = Date.UTC(2026, 0, 2, 3, 4, 5, 6);
    const clock = isoClock(() => ms);
    const first = clock();
    expect(first).toBe('2026-01-02T03:04:05.006Z');
    expect(clock()).toBe(first);
    ms += 1;
    expect(clock()).toBe('2026-01-02T03:04:05.007Z');
    ms -= 5_000;
    expect(clock()).toBe('2026-01-02T03:04:00.007Z');
  });
});
