import type { EventEnvelope } from '@planhub/shared';
import { currentLoad } from '../report/machine.ts';
import { newHistogram, recordMs, summarize } from '../stats/histogram.ts';
import { mustAnswer } from './answers.ts';
import { completeChildren } from './planhub-lanes.ts';
import { planhubOutputKey, preparePlanhubFanin, type PlanhubFanin } from './planhub-setup.ts';
import { childOutput, type FaninOutcome, type FaninShape } from './shape.ts';
import { verifyFanin, type UnblockSeen } from './verify.ts';

/** The names of the outputs a step_unblocked carries: a list of keys today, a key → value record if that changes. */
const carriedOutputs = (payload: Record<string, unknown>): string[] => {
  const outputs = payload.received_outputs;
  if (Array.isArray(outputs)) return outputs.map(String);
  return outputs && typeof outputs === 'object' ? Object.keys(outputs) : [];
};

/** Resolves once `count()` reaches the target set later, or after `ms`, whichever comes first. */
const waiter = (count: () => number) => {
  let target = Number.POSITIVE_INFINITY;
  let wake = () => {};
  const reached = new Promise<void>((done) => (wake = done));
  return {
    check: () => void (count() >= target && wake()),
    async until(value: number, ms: number) {
      target = value;
      if (count() >= target) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([reached, new Promise<void>((done) => (timer = setTimeout(done, ms)))]);
      clearTimeout(timer);
    },
  };
};

/**
 * PlanHub's fan-in: K subagents complete their F steps with completeStepWithOutput, `inFlight` calls at a time in
 * total; every flow's parent step unblocks when its K-th child completes, and the parent's connection receives
 * step_unblocked. See docs/bench-method.md.
 */
export const runPlanhubFanin = async (url: string, tag: string, shape: FaninShape): Promise<FaninOutcome> => {
  const { flows, children } = shape;
  const loadAverage = currentLoad();
  const setupStart = performance.now();
  const unblocks: Array<UnblockSeen & { at: number }> = [];
  let strays = 0;
  const arrived = waiter(() => unblocks.length);
  // Set once setup returns; no child completes (and no unblock arrives) before that.
  const handle: { fanin?: PlanhubFanin } = {};
  const onUnblocked = (event: EventEnvelope, at: number) => {
    const flow = handle.fanin?.flowOfStep.get(`${event.source_plan_id}:${event.source_step_id}`);
    if (flow === undefined) strays += 1;
    else unblocks.push({ flow, outputs: carriedOutputs(event.payload), at });
    arrived.check();
  };
  const fanin = await preparePlanhubFanin(url, tag, shape, onUnblocked);
  handle.fanin = fanin;
  const setupMs = performance.now() - setupStart;
  try {
    const c = await completeChildren(fanin, tag, shape);
    const complete = (flow: number) =>
      Array.from({ length: children }, (_, child) => c.childDone(flow, child)).every((d) => d === true);
    await arrived.until(Array.from({ length: flows }, (_, flow) => flow).filter(complete).length, shape.graceMs);
    // Everything below judges the same moment: an unblock arriving later than the grace period is not counted.
    const seen = unblocks.slice();
    const strayCount = strays;

    const histogram = newHistogram();
    for (const u of seen) {
      let lastSend = 0;
      for (let child = 0; child < children; child++)
        lastSend = Math.max(lastSend, c.firstSent[u.flow * children + child] as number);
      recordMs(histogram, u.at - lastSend);
    }
    const view = await mustAnswer(
      fanin.parent.socket,
      'getPlanStatus',
      { plan_id: fanin.parent.planId },
      `${tag}-read`,
    );
    const outputsOfStep = new Map(view.steps.map((s) => [`${view.plan_id}:${s.step_id}`, s.received_outputs]));
    const stepOfFlow = new Map([...fanin.flowOfStep].map(([key, flow]) => [flow, key]));
    const verdict = verifyFanin({
      flows,
      children,
      childDone: c.childDone,
      unblocks: seen,
      strays: strayCount,
      outputKey: (flow, child) => planhubOutputKey(fanin, flow, child),
      finalOutputs: (flow) => outputsOfStep.get(stepOfFlow.get(flow) ?? ''),
      expectedOutput: childOutput,
    });
    const elapsedMs = (c.completed > 0 ? c.lastDone : performance.now()) - c.start;
    return {
      system: 'planhub',
      flows,
      children,
      inFlight: c.lanes,
      completed: c.completed,
      elapsedMs,
      completionsPerSec: elapsedMs > 0 ? (c.completed * 1000) / elapsedMs : 0,
      refusals: c.refusals,
      unblocked: new Set(seen.map((u) => u.flow)).size,
      latency: summarize(histogram),
      ...verdict,
      timedOut: c.timedOut,
      setupMs,
      loadAverage,
    };
  } finally {
    fanin.close();
  }
};
