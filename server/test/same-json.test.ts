import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sameJson } from '../src/core/same-json.ts';

/** JSON text with object keys sorted, so texts compare content whatever the key order. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );

describe('sameJson', () => {
  it('agrees with comparing JSON texts (keys sorted), undefined values left out', () => {
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom(null, true, false, 0, 1, 'a', 'b', ''),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.oneof(tie('node'), fc.constant(undefined)), { maxKeys: 3 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, value, (a, b) => {
        expect(sameJson(a, b)).toBe(canonical(a) === canonical(b));
        expect(sameJson(a, structuredClone(a))).toBe(true);
      }),
      { numRuns: 3000, seed: 3 },
    );
  });

  it('tells a changed step from an equal copy', () => {
    const step = { id: 'step_1', status: 'pending', details: { tags: ['x'] }, result: undefined };
    expect(sameJson(step, { id: 'step_1', status: 'pending', details: { tags: ['x'] } })).toBe(true);
    expect(sameJson(step, { ...step, status: 'completed' })).toBe(false);
    expect(sameJson(step, { ...step, details: { tags: ['y'] } })).toBe(false);
    expect(sameJson(step, { ...step, extra: 1 })).toBe(false);
    expect(sameJson([1, 2], { 0: 1, 1: 2 })).toBe(false);
  });
});
