import { expect, vi } from 'vitest';

/**
 * vi.waitFor / expect.poll with a patience that suits a loaded 2-core CI machine (their default is 1 s). These wait
 * on a condition, never on time: they return as soon as it holds.
 */
const PATIENCE = { timeout: 15_000, interval: 20 };

export const eventually = <T>(check: () => T | Promise<T>, options: { timeout?: number } = {}): Promise<T> =>
  vi.waitFor(check, { ...PATIENCE, ...options });

export const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, PATIENCE);
