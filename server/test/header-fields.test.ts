import { describe, expect, it } from 'vitest';
import { copyWithout } from '../src/core/copy-without.ts';
import { newPlan } from '../src/core/plans/plan-factory.ts';
import { headerFieldsOf, readHeaderFields, sameHeaderFields } from '../src/core/plans/plan-split.ts';

const NOW = '2026-01-01T00:00:00.000Z';
const plan = () =>
  newPlan({
    plan_id: 'p1',
    workspace: 'w',
    agent_id: 'a',
    title: 'ship it',
    dialect: '000',
    steps: [{ description: 'one' }, { description: 'two' }],
    now: NOW,
  });

describe('a plan header’s fields as a call read them', () => {
  it('are the same after a change of steps or time only, and differ after any field changes', () => {
    const read = plan();
    read.details = { goal: 'g' };
    const before = readHeaderFields(read);
    const stepsOnly = { ...read, steps: read.steps.slice(1), updated_at: '2026-02-01T00:00:00.000Z' };
    expect(sameHeaderFields(headerFieldsOf(stepsOnly), before)).toBe(true);
    // A new value of the same content is the same header: compared by content when not by reference.
    expect(sameHeaderFields(headerFieldsOf({ ...read, details: { goal: 'g' } }), before)).toBe(true);
    expect(sameHeaderFields(headerFieldsOf({ ...read, details: { goal: 'h' } }), before)).toBe(false);
    expect(sameHeaderFields(headerFieldsOf({ ...read, title: 'other' }), before)).toBe(false);
    expect(sameHeaderFields(headerFieldsOf({ ...read, summary: 'new field' }), before)).toBe(false);
    // Same-plan waiters kept under an id that is no step of the plan are part of the header.
    const waiter = { agent_id: 'b', plan_id: 'q', step_id: 'step_1' };
    expect(sameHeaderFields(headerFieldsOf({ ...read, waiters: { gone: [waiter] } }), before)).toBe(false);
  });

  it('cannot be changed in place once read, so a value still the same as read is unchanged', () => {
    const read = plan();
    read.details = { goal: 'g', nested: { n: 1 } };
    readHeaderFields(read);
    expect(() => {
      (read.details as { goal: string }).goal = 'changed';
    }).toThrow(TypeError);
    expect(() => {
      (read.details as { nested: { n: number } }).nested.n = 2;
    }).toThrow(TypeError);
  });
});

describe('copyWithout', () => {
  it('copies every own key but those named, in order, into a new object', () => {
    const source = { a: 1, b: { c: 2 }, d: undefined, e: 'x' };
    const copy = copyWithout(source, ['b', 'e']);
    expect(copy).not.toBe(source);
    expect(Object.keys(copy)).toEqual(['a', 'd']);
    expect(copy).toEqual({ a: 1, d: undefined });
    expect(copyWithout(source, [])).toEqual(source);
  });
});
