import { describe, expect, it } from 'vitest';
import { benchConfigFromEnv } from './config.ts';
import { PRESENCE_HEARTBEAT_MS } from './load/departures.ts';

describe('bench configuration', () => {
  it('defaults to 5 repetitions, 1 for BENCH_QUICK=1, and takes overrides', () => {
    expect(benchConfigFromEnv({}).repetitions).toBe(5);
    expect(benchConfigFromEnv({ BENCH_QUICK: '1' }).repetitions).toBe(1);
    expect(benchConfigFromEnv({ BENCH_REPS: '7', BENCH_P99_TARGET_MS: '10' })).toMatchObject({
      repetitions: 7,
      p99TargetMs: 10,
    });
    expect(() => benchConfigFromEnv({ BENCH_REPS: 'many' })).toThrow();
  });

  it('takes --quick as a switch, and --no-quick over BENCH_QUICK=1', () => {
    expect(benchConfigFromEnv({}, ['--quick'])).toMatchObject({ quick: true, repetitions: 1 });
    expect(benchConfigFromEnv({ BENCH_QUICK: '1' }, ['--no-quick']).quick).toBe(false);
    expect(benchConfigFromEnv({}, ['--only', 'floors']).quick).toBe(false);
  });

  it('selects the frame-attack scenario alone and takes its rounds and phase length', () => {
    const config = benchConfigFromEnv({}, [
      '--only',
      'frame-attack',
      '--attack-rounds',
      '3',
      '--attack-phase-ms',
      '200',
    ]);
    expect(config).toMatchObject({ only: 'frame-attack', frameAttack: { rounds: 3, phaseMs: 200 } });
    expect(config.outFile).toBe('.bench/latest-frame-attack.json');
    expect(benchConfigFromEnv({}).frameAttack).toEqual({ rounds: 8, phaseMs: 500 });
  });

  it('selects the crowded-workspace scenario alone and takes its rounds, phase length and watchers', () => {
    const config = benchConfigFromEnv({}, ['--only', 'crowd', '--crowd-rounds', '2', '--crowd-watchers', '50']);
    expect(config).toMatchObject({ only: 'crowd', crowd: { rounds: 2, phaseMs: 2000, watchers: 50 } });
    expect(config.outFile).toBe('.bench/latest-crowd.json');
    expect(benchConfigFromEnv({}).crowd).toEqual({ rounds: 6, phaseMs: 2000, watchers: 500 });
    expect(benchConfigFromEnv({ BENCH_QUICK: '1' }).crowd).toEqual({ rounds: 2, phaseMs: 2000, watchers: 100 });
  });

  it("waits out the previous run's departures for a heartbeat and a second, not in a quick run", () => {
    expect(benchConfigFromEnv({}).settleMs).toBe(PRESENCE_HEARTBEAT_MS + 1000);
    expect(benchConfigFromEnv({ BENCH_QUICK: '1' }).settleMs).toBe(0);
    expect(benchConfigFromEnv({ BENCH_SETTLE_MS: '0' }).settleMs).toBe(0);
    expect(() => benchConfigFromEnv({ BENCH_SETTLE_MS: '-1' })).toThrow();
  });

  it('runs the production bundle unless told to run the sources', () => {
    expect(benchConfigFromEnv({}).server).toBe('bundle');
    expect(benchConfigFromEnv({ BENCH_SERVER: 'source' }).server).toBe('source');
    expect(benchConfigFromEnv({ BENCH_SERVER: 'source' }, ['--server', 'bundle']).server).toBe('bundle');
    expect(() => benchConfigFromEnv({ BENCH_SERVER: 'tsx' })).toThrow();
  });
});
