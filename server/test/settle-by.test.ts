import { describe, expect, it } from 'vitest';
import { settleBy } from '../src/ops/settle-by.ts';

/** A shutdown step's outcome by its deadline: a failure is reported, not taken for success (close() rethrows it). */
describe('settleBy', () => {
  const soon = () => performance.now() + 200;

  it('answers done, with its value, for a step that ends in time', async () => {
    expect(await settleBy(soon(), Promise.resolve('closed'))).toEqual({ done: true, value: 'closed' });
  });

  it('answers the error of a step that fails in time', async () => {
    const err = new Error('the file store did not close');
    expect(await settleBy(soon(), Promise.reject(err))).toEqual({ failed: err });
  });

  it('answers late for a step still running at the deadline, and leaves no rejection unhandled', async () => {
    let fail: (err: Error) => void = () => undefined;
    const step = new Promise((_, reject) => (fail = reject));
    expect(await settleBy(performance.now() + 20, step)).toEqual({ late: true });
    fail(new Error('too late to matter'));
    await new Promise((resolve) => setTimeout(resolve, 10));
  });

  it('answers late at once when the deadline has passed', async () => {
    expect(await settleBy(performance.now() - 1, new Promise(() => undefined))).toEqual({ late: true });
  });
});
