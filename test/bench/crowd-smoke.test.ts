import { describe, expect, it } from 'vitest';
import { runCrowdSuite } from './crowd/suite.ts';
import { CROWD_RATIO_SPECS, crowdTable } from './report/crowd.ts';
import { ratioRows } from './report/ratio-table.ts';
import { emptyResults } from './report/results.ts';

/** The crowded-workspace scenario end to end at a tiny size: its figures are the bench's, here only its wiring. */
describe('the crowded-workspace scenario', () => {
  it('times a bystander in quiet and loud phases while the watchers get the events', async () => {
    const figures = await runCrowdSuite(
      { rounds: 1, phaseMs: 500, watchers: 20, repetitions: 1, server: 'source' },
      () => undefined,
    );
    expect(figures.quiet).toMatchObject({ calls: 100, errors: 0 });
    expect(figures.loud).toMatchObject({ calls: 100, errors: 0 });
    // The loud phase's step completions reached the watchers (a count taken while some may be on their way).
    expect(figures.pushes).toBeGreaterThan(0);
    const results = { ...emptyResults(), crowd: figures };
    expect(ratioRows(results, CROWD_RATIO_SPECS)).toHaveLength(1);
    expect(crowdTable(results, 'text')).toMatch(/20 connections watch the other workspace/);
  }, 120_000);
});
