import { PlanHubError } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineDocument } from '../src/store/documents/define.ts';

const kind = defineDocument({
  name: 'thing',
  version: 1,
  key: (id: string) => `thing:${id}`,
  schema: z.object({ n: z.number() }),
});

describe('a declared document kind', () => {
  it('hands back a shared frozen value it found valid, and refuses a corrupt one on every read', () => {
    const valid = Object.freeze({ n: 1 });
    expect(kind.decode('thing:a', valid)).toBe(valid);
    expect(kind.decode('thing:a', valid)).toBe(valid);
    const corrupt = Object.freeze({ n: 'one' });
    for (let i = 0; i < 2; i++) {
      const err = (() => {
        try {
          kind.decode('thing:b', corrupt);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(err).toBeInstanceOf(PlanHubError);
      expect((err as PlanHubError).message).toContain('thing:b');
    }
  });

  it('checks a value that can still change on every read', () => {
    const value = { n: 1 };
    expect(kind.decode('thing:c', value)).toBe(value);
    (value as { n: unknown }).n = 'changed';
    expect(() => kind.decode('thing:c', value)).toThrow(/thing:c/);
  });
});
