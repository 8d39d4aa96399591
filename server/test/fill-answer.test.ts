import { describe, expect, it } from 'vitest';
import { fillAnswer, fillAnswerValue } from '../src/store/fill.ts';

const byJson = (answer: unknown, fanIns: Parameters<typeof fillAnswer>[1], fired: boolean[]): unknown =>
  JSON.parse(fillAnswer(JSON.stringify(answer), fanIns, fired));

const waiter = (n: number) => ({ agent_id: `parent${n}`, plan_id: `p${n}`, step_id: `step_${n}`, outputs: [n, { n }] });

describe('fillAnswerValue: a call’s answer completed by its fan-ins without a trip through JSON', () => {
  const fanIns = [
    { answer: { token: '\u0000fanin:a', value: waiter(1) } },
    {},
    { answer: { token: '\u0000fanin:b', value: waiter(2) } },
    { answer: { token: '\u0000fanin:c', value: waiter(3) } },
  ];
  const answer = {
    plan_id: 'p0',
    progress: { completed: 3, total: 5 },
    message: 'Step step_1 is completed; \u0000fanin:a inside a longer text stays as it is.',
    unblocked: [{ agent_id: 'same-plan' }, '\u0000fanin:a', '\u0000fanin:b', '\u0000fanin:c'],
    nested: { deep: [['\u0000fanin:b'], { at: '\u0000fanin:c' }] },
    untouched: { list: [1, 2, 3] },
  };

  it('gives what the JSON fill gives, whichever fan-ins fired', () => {
    for (const fired of [
      [false, false, false, false],
      [true, false, false, false],
      [true, false, true, false],
      [true, true, true, true],
      [false, true, false, true],
    ])
      expect(fillAnswerValue(answer, fanIns, fired)).toEqual(byJson(answer, fanIns, fired));
  });

  it('leaves the answer as it is, the same object, when no fan-in names a token', () => {
    expect(fillAnswerValue(answer, [{}, {}], [true, true])).toBe(answer);
  });

  it('copies only what leads to a token: the answer it was given is not changed', () => {
    const before = structuredClone(answer);
    const filled = fillAnswerValue(answer, fanIns, [true, false, true, true]);
    expect(answer).toEqual(before);
    expect(filled).not.toBe(answer);
    expect(filled.untouched).toBe(answer.untouched);
    expect(filled.progress).toBe(answer.progress);
    expect(filled.unblocked[0]).toBe(answer.unblocked[0]);
  });
});
