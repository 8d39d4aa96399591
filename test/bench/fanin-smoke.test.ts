import { MAX_ARRAY } from '@planhub/shared';
import { Redis } from 'ioredis';
import { describe, expect, inject, it } from 'vitest';
import { startHarness, STORE_KINDS, uniquePrefix } from '../helpers/servers.ts';
import { benchConfigFromEnv } from './config.ts';
import { BULLMQ_PREFIX, runBullmqFanin } from './fanin/bullmq-fanin.ts';
import { runPlanhubFanin } from './fanin/planhub-fanin.ts';
import { startSubagentPlan } from './fanin/planhub-setup.ts';
import { call, openAgent } from './load/wire-client.ts';
import { childOutput, type FaninShape } from './fanin/shape.ts';
import { faninFiguresOf } from './fanin/suite.ts';
import { verifyFanin, type FaninEvidence } from './fanin/verify.ts';
import { faninRatioSpecs } from './report/fanin-ratios.ts';
import { faninTable, faninViolations } from './report/fanin-table.ts';
import { ratioRows } from './report/ratio-table.ts';
import { ratioTable } from './report/render.ts';
import type { BenchResults } from './report/results.ts';

const TINY: FaninShape = { flows: 4, children: 3, inFlight: 6, timeoutMs: 60_000, graceMs: 20_000 };

/** A fan-in that kept its promise: every flow unblocked once, carrying every output with the value sent. */
const clean = (flows = 3, children = 2): FaninEvidence => ({
  flows,
  children,
  childDone: () => true,
  unblocks: Array.from({ length: flows }, (_, flow) => ({
    flow,
    outputs: Array.from({ length: children }, (_, child) => `${flow}:${child}`),
  })),
  strays: 0,
  outputKey: (flow, child) => `${flow}:${child}`,
  finalOutputs: (flow) =>
    Object.fromEntries(Array.from({ length: children }, (_, child) => [`${flow}:${child}`, childOutput(flow, child)])),
  expectedOutput: childOutput,
});

describe('fan-in verification', () => {
  it('passes a fan-in in which every parent was unblocked once with all outputs', () => {
    expect(verifyFanin(clean())).toEqual({ failures: [], incompleteFlows: 0 });
  });

  it('fails a parent unblocked twice, or never although all its children completed', () => {
    const twice = clean();
    const doubled = verifyFanin({ ...twice, unblocks: [...twice.unblocks, twice.unblocks[1]!] });
    expect(doubled.failures).toEqual(['flow 1: 2 unblocks after all 2 children completed (expected 1)']);
    const missing = verifyFanin({ ...twice, unblocks: twice.unblocks.slice(1) });
    expect(missing.failures).toEqual(['flow 0: 0 unblocks after all 2 children completed (expected 1)']);
  });

  it('fails an unblock that lacks an output, and a parent holding a wrong value', () => {
    const e = clean();
    const short = verifyFanin({
      ...e,
      unblocks: e.unblocks.map((u) => (u.flow === 2 ? { ...u, outputs: ['2:0'] } : u)),
    });
    expect(short.failures).toEqual(['flow 2: the unblock carried 1 of 2 outputs']);
    const wrong = verifyFanin({
      ...e,
      finalOutputs: (flow) => ({ ...e.finalOutputs!(flow), '1:1': flow === 1 ? { flow: 9 } : childOutput(flow, 1) }),
    });
    expect(wrong.failures).toEqual(['flow 1: output 1:1 is {"flow":9}']);
  });

  it('fails an early unblock and stray notifications, and only counts flows cut short by the time bound', () => {
    const e = clean();
    const early = verifyFanin({ ...e, childDone: (flow, child) => !(flow === 0 && child === 1) });
    expect(early).toEqual({ failures: ['flow 0: unblocked with 1 of 2 children completed'], incompleteFlows: 1 });
    const cut = verifyFanin({ ...e, childDone: (flow) => flow !== 2, unblocks: e.unblocks.slice(0, 2) });
    expect(cut).toEqual({ failures: [], incompleteFlows: 1 });
    const unknown = verifyFanin({ ...e, childDone: (flow, child) => (flow === 0 && child === 0 ? undefined : true) });
    expect(unknown).toEqual({ failures: [], incompleteFlows: 1 });
    expect(verifyFanin({ ...e, strays: 2 }).failures).toEqual(['2 unblock notifications matched no parent of the run']);
  });
});

describe('fan-in runs at tiny size', () => {
  for (const store of STORE_KINDS)
    it(`unblocks every PlanHub parent step exactly once with all outputs (${store} store)`, async () => {
      const harness = await startHarness(store, { approvalPolicy: 'auto' });
      try {
        const outcome = await runPlanhubFanin(harness.url, `t${uniquePrefix()}`, TINY);
        expect(outcome.failures).toEqual([]);
        expect(outcome).toMatchObject({ completed: 12, unblocked: 4, incompleteFlows: 0, timedOut: false });
        expect(outcome.latency.count).toBe(4);
      } finally {
        await harness.close();
      }
    });

  it('builds subagent plans longer than one createPlan call takes, as the 1,000-flow run needs', async () => {
    const harness = await startHarness('memory', { approvalPolicy: 'auto', limits: { stepsPerPlan: 300 } });
    const socket = await openAgent(harness.url, 'ws', 'sub');
    try {
      const plan = await startSubagentPlan(socket, 'sub', MAX_ARRAY + 2);
      expect(new Set(plan.stepIds).size).toBe(MAX_ARRAY + 2);
      const view = await call(socket, 'getPlanStatus', { plan_id: plan.planId });
      expect(view.status).toBe('in_progress');
      expect(view.steps.map((s) => s.step_id)).toEqual(plan.stepIds);
    } finally {
      socket.close();
      await harness.close();
    }
  });

  it('fails a run whose setup outlasts the time bound instead of waiting for it', async () => {
    const harness = await startHarness('memory', { approvalPolicy: 'auto' });
    try {
      const late = runPlanhubFanin(harness.url, `t${uniquePrefix()}`, { ...TINY, timeoutMs: 0 });
      await expect(late).rejects.toThrow(/did not finish within the run's time bound/);
    } finally {
      await harness.close();
    }
  });

  it('unblocks every BullMQ parent exactly once with all outputs and removes its queues afterwards', async () => {
    const url = inject('redisUrl');
    const tag = uniquePrefix();
    const outcome = await runBullmqFanin(url, tag, TINY);
    expect(outcome.failures).toEqual([]);
    expect(outcome).toMatchObject({ completed: 12, unblocked: 4, incompleteFlows: 0, timedOut: false });
    expect(outcome.refusals).toEqual({});
    const redis = new Redis(url);
    try {
      expect(await redis.keys(`${BULLMQ_PREFIX}:fanin-*-${tag}:*`)).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });
});

describe('fan-in report', () => {
  const outcome = (system: 'planhub' | 'bullmq', perSec: number, p99: number, refusals: Record<string, number>) => ({
    system,
    flows: 100,
    children: 10,
    inFlight: 50,
    completed: 1000,
    elapsedMs: 1000,
    completionsPerSec: perSec,
    refusals,
    unblocked: 100,
    latency: { count: 100, p50: p99 / 2, p90: p99, p99, p999: p99, max: p99 },
    failures: [],
    incompleteFlows: 0,
    timedOut: false,
    setupMs: 100,
    loadAverage: 1,
  });

  it('judges completions/s, refusals and unblock p99 against the issue targets', () => {
    const results: BenchResults = {
      throughput: {},
      latency: {},
      fanin: {
        'planhub.100': faninFiguresOf([outcome('planhub', 900, 30, { UNAVAILABLE: 2, NO_ANSWER: 1 })], []),
        'bullmq.100': faninFiguresOf([outcome('bullmq', 1000, 10, {})], []),
      },
      notes: [],
    };
    const rows = ratioRows(results, faninRatioSpecs([100], 10, 50));
    expect(rows.map((r) => [r.ratio?.median, r.verdict])).toEqual([
      [0.9, 'miss'],
      [3, 'miss'],
      [3, 'miss'],
    ]);
    expect(ratioTable(rows, 'text')).toContain('≤ 0 (issue 9)');
    // One refused call in any repetition misses the target, even when the median repetition had none.
    const reps = faninFiguresOf(
      [
        outcome('planhub', 900, 30, {}),
        outcome('planhub', 900, 30, { UNAVAILABLE: 1 }),
        outcome('planhub', 900, 30, {}),
      ],
      [],
    );
    const refusalRow = ratioRows({ ...results, fanin: { 'planhub.100': reps } }, faninRatioSpecs([100], 10, 50))[1];
    expect(refusalRow).toMatchObject({ verdict: 'miss', ratio: { median: 1 } });
    expect(faninTable(results, 'text')).toContain('2 UNAVAILABLE, 1 NO_ANSWER');
    expect(faninViolations(results)).toEqual([]);
  });

  it('reports a run that failed as a violation', () => {
    const figures = faninFiguresOf([], ['rep 1: the run failed: boom']);
    const results: BenchResults = { throughput: {}, latency: {}, fanin: { 'planhub.100': figures }, notes: [] };
    expect(faninViolations(results)).toEqual(['fan-in planhub.100: rep 1: the run failed: boom']);
  });

  it('runs the fan-in alone from the command line, which wins over the environment', () => {
    const c = benchConfigFromEnv({ BENCH_REPS: '5' }, [
      '--',
      '--only',
      'fanin',
      '--reps',
      '1',
      '--fanin-flows',
      '10,20',
    ]);
    expect(c).toMatchObject({ only: 'fanin', repetitions: 1, outFile: '.bench/latest-fanin.json' });
    expect(c.fanin).toMatchObject({ flows: [10, 20], children: 10, inFlight: 50 });
    expect(benchConfigFromEnv({}).fanin.flows).toEqual([100, 1000]);
    expect(() => benchConfigFromEnv({}, ['--only', 'everything'])).toThrow();
    expect(() => benchConfigFromEnv({}, ['--fanin-flow', '10'])).toThrow();
  });
});
