import { describe, expect, it } from 'vitest';
import { FRAME_ATTACK_RATIO_SPECS, frameAttackNotes, frameAttackTable } from './report/frame-attack.ts';
import { ratioRows } from './report/ratio-table.ts';
import type { AttackPhaseFigures, BenchResults, FrameAttackFigures } from './report/results.ts';
import { figureOf } from './stats/repetitions.ts';

const figure = (...samples: number[]) => figureOf(samples);

describe('bench frame-attack report', () => {
  const phase = (p99: number[], errors = 0): AttackPhaseFigures => ({
    calls: 1000,
    p50: figure(...p99.map(() => 1)),
    p90: figure(...p99),
    p99: figure(...p99),
    max: figure(...p99),
    errors,
  });
  const attack = (quiet: number[], loud: number[], extra: Partial<FrameAttackFigures> = {}): BenchResults => ({
    throughput: {},
    latency: {},
    notes: [],
    frameAttack: {
      rate: 500,
      framesPerSecond: 7,
      frameKeys: 60_000,
      frameBytes: 660_070,
      rounds: 8,
      phaseMs: 500,
      quiet: phase(quiet),
      loud: phase(loud),
      answersByCode: { RESOURCE_EXHAUSTED: 40 },
      notRefusedByScan: 0,
      loadAverage: figure(1),
      ...extra,
    },
  });

  it('judges the loud p99 against the quiet p99 of the same repetition, at most 2×', () => {
    const [met] = ratioRows(attack([4, 8, 4], [6, 10, 9]), FRAME_ATTACK_RATIO_SPECS);
    expect(met?.ratio?.samples).toEqual([1.5, 1.25, 2.25]);
    expect(met).toMatchObject({ verdict: 'pass', target: { op: '<=', value: 2 } });
    const [missed] = ratioRows(attack([4], [9]), FRAME_ATTACK_RATIO_SPECS);
    expect(missed).toMatchObject({ verdict: 'miss' });
    const [absent] = ratioRows({ throughput: {}, latency: {}, notes: [] }, FRAME_ATTACK_RATIO_SPECS);
    expect(absent).toMatchObject({ verdict: 'not measured' });
  });

  it('shows both phases and the answers, and notes frames the scan did not refuse', () => {
    const clean = attack([4], [6]);
    expect(frameAttackTable(clean, 'markdown')).toMatch(/\| under attack \| 1000 \|/);
    expect(frameAttackTable(clean, 'text')).toContain('40 RESOURCE_EXHAUSTED');
    expect(frameAttackNotes(clean)).toEqual([]);
    const leaky = attack([4], [6], {
      notRefusedByScan: 2,
      answersByCode: { RESOURCE_EXHAUSTED: 38, INVALID_ARGUMENT: 2 },
    });
    expect(frameAttackNotes(leaky)).toEqual([
      'frame attack: 2 frames were not refused by the raw-text scan (see its answers).',
    ]);
  });
});
