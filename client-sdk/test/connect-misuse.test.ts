import { PlanHubError } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { connect, createClient } from '../src/index.ts';

describe('connect() with a url that is not a string or a list of them', () => {
  it('rejects INVALID_ARGUMENT saying what url must be and what it got, instead of a TypeError without a code', async () => {
    const cases: [unknown, string][] = [
      [undefined, 'got undefined (is the environment variable it comes from set?).'],
      [4000, 'got 4000 (a number).'],
      [null, 'got null (null).'],
      [{ host: 'x' }, 'got {"host":"x"} (an object).'],
    ];
    for (const [url, got] of cases) {
      const error = await connect({ url: url as string, agentId: 'a' }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(PlanHubError);
      expect(error).toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: `connect() needs url: a node's address like http://127.0.0.1:4000, or a list of them; ${got}`,
      });
      expect(() => createClient({ url: url as string, agentId: 'a' })).toThrow(PlanHubError);
    }
    await expect(connect({ url: [], agentId: 'a' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
