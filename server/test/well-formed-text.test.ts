import { PlanHubError } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { checkShape } from '../src/limits/json-shape.ts';
import { checkWellFormedText, illFormedTextAt } from '../src/limits/well-formed-text.ts';

describe('well-formed text in call arguments', () => {
  it('accepts text with whole surrogate pairs, and values that hold no text', () => {
    expect(illFormedTextAt({ a: 'plain', b: ['emoji 😀', { c: '\ud83d\ude00' }], n: 1, z: null }, 'args')).toBe(
      undefined,
    );
    expect(illFormedTextAt(undefined, 'args')).toBe(undefined);
  });

  it('names where a lone high or low surrogate stands, in values and in keys', () => {
    expect(illFormedTextAt({ step_id: '\ud800' }, 'args')).toBe('args.step_id');
    expect(illFormedTextAt({ output: { steps: [{ description: 'x\udc00y' }] } }, 'args')).toBe(
      'args.output.steps[0].description',
    );
    expect(illFormedTextAt({ meta: { ['k\ud800']: 1 } }, 'args')).toBe('args.meta (a key)');
    expect(illFormedTextAt('\ude00\ud83d', 'request_id')).toBe('request_id');
  });

  it('refuses with INVALID_ARGUMENT naming the field and saying what to send', () => {
    let thrown: unknown;
    try {
      checkWellFormedText({ step_id: '\ud800' }, 'args');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(PlanHubError);
    const shape = (thrown as PlanHubError).toShape();
    expect(shape.code).toBe('INVALID_ARGUMENT');
    expect(shape.message).toMatch(/^args\.step_id is not valid Unicode text/);
    expect(shape.message).toMatch(/Send well-formed text/);
  });

  it('is checked in the depth walk of a call when asked, and only then', () => {
    const call = { tool: 'addStep', args: { description: 'a\ud800' } };
    expect(() => checkShape('arguments', call, { maxDepth: 12, wellFormedText: 'call' })).toThrow(
      /^call\.args\.description is not valid Unicode text/,
    );
    expect(() => checkShape('arguments', call, { maxDepth: 12 })).not.toThrow();
    expect(() =>
      checkShape('arguments', { tool: 'addStep', args: { ['k\udc00']: 1 } }, { maxDepth: 12, wellFormedText: 'call' }),
    ).toThrow(/^call\.args \(a key\) is not valid Unicode text/);
  });
});
