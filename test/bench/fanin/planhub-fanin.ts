import type { EventEnvelope } from '@planhub/shared';
import { currentLoad } from '../report/machine.ts';
import { newHistogram, recordMs, summarize } from '../stats/histogram.ts';
import { answerRetrying, mustAnswer } from './answers.ts';
import { planhubOutputKey, preparePlanhubFanin, type PlanhubFanin } from './planhub-setup.ts';
import { childOutput, lanesPerOwner, type FaninOutcome, type FaninShape } from './shape.ts';
import { verifyFanin, type UnblockSeen } from './verify.ts';

/** The names of the outputs a step_unblocked carries: a list of keys today, a key → value record if that changes. */
const carriedOutputs = (payload: Record<string, unknown>): string[] => {
  const outputs = payload.received_outputs;
  if (Array.isArray(outputs)) return outputs.map(String);
  return outputs && typeof outputs === 'object' ? Object.keys(outputs) : [];
};

/** A child whose last attempt got no answer: it may have committed, so its flow is not judged. */
const UNKNOWN = 2;

const deferred = () => {
  let resolve = () => {};
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
};

/**
 * PlanHub's fan-in: K subagents complete their F steps with completeStepWithOutput, `inFlight` calls at a time in
 * total (split evenly over the subagents, each going through its steps in flow order); every flow's parent step
 * unblocks when its K-th child completes, and the parent's connection receives step_unblocked.
 */
export const runPlanhubFanin = async (url: string, tag: string, shape: FaninShape): Promise<FaninOutcome> => {
  const { flows, children } = shape;
  const loadAverage = currentLoad();
  const setupStart = performance.now();
  const unblocks: Array<UnblockSeen & { at: number }> = [];
  let strays = 0;
  let expectedUnblocks = Number.POSITIVE_INFINITY;
  const allUnblocked = deferred();
  // Set once setup returns; no child completes (and no unblock arrives) before that.
  const handle: { fanin?: PlanhubFanin } = {};
  const onUnblocked = (event: EventEnvelope, at: number) => {
    const flow = handle.fanin?.flowOfStep.get(`${event.source_plan_id}:${event.source_step_id}`);
    if (flow === undefined) strays += 1;
    else unblocks.push({ flow, outputs: carriedOutputs(event.payload), at });
    if (unblocks.length >= expectedUnblocks) allUnblocked.resolve();
  };
  const prepared = await preparePlanhubFanin(url, tag, shape, onUnblocked);
  handle.fanin = prepared;
  const setupMs = performance.now() - setupStart;

  const firstSent = new Float64Array(flows * children);
  const done = new Uint8Array(flows * children);
  const refusals: Record<string, number> = {};
  const nextFlow = new Array<number>(children).fill(0);
  let completed = 0;
  let lastDone = 0;
  const start = performance.now();
  const deadline = start + shape.timeoutMs;
  const inTime = () => performance.now() < deadline;
  const lane = async (child: number) => {
    const sub = prepared.subagents[child];
    if (!sub) return;
    while (inTime() && (nextFlow[child] as number) < flows) {
      const flow = nextFlow[child] as number;
      nextFlow[child] = flow + 1;
      const slot = flow * children + child;
      const answer = await answerRetrying(
        sub.socket,
        'completeStepWithOutput',
        { step_id: sub.stepIds[flow] as string, plan_id: sub.planId, output: childOutput(flow, child) },
        {
          requestId: `${tag}-c${child}-${flow}`,
          timeoutMs: 30_000,
          refusals,
          mayRetry: inTime,
          onFirstSend: (at) => (firstSent[slot] = at),
        },
      );
      if (!answer.ok) {
        if (answer.code === 'NO_ANSWER') done[slot] = UNKNOWN;
        continue;
      }
      done[slot] = 1;
      completed += 1;
      lastDone = performance.now();
    }
  };
  const perSubagent = lanesPerOwner(shape.inFlight, children);
  await Promise.all(Array.from({ length: children * perSubagent }, (_, i) => lane(Math.floor(i / perSubagent))));
  const timedOut = completed < flows * children && !inTime();

  const childDone = (flow: number, child: number) => {
    const state = done[flow * children + child];
    return state === UNKNOWN ? undefined : state === 1;
  };
  expectedUnblocks = Array.from({ length: flows }, (_, flow) => flow).filter((flow) =>
    Array.from({ length: children }, (_, child) => childDone(flow, child)).every((d) => d === true),
  ).length;
  if (unblocks.length >= expectedUnblocks) allUnblocked.resolve();
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    allUnblocked.promise,
    new Promise<void>((done) => (graceTimer = setTimeout(done, shape.graceMs))),
  ]);
  clearTimeout(graceTimer);
  // Everything below judges the same moment: an unblock arriving later (after the grace) is not counted.
  const seen = unblocks.slice();

  const histogram = newHistogram();
  for (const u of seen) {
    let lastSend = 0;
    for (let child = 0; child < children; child++)
      lastSend = Math.max(lastSend, firstSent[u.flow * children + child] as number);
    recordMs(histogram, u.at - lastSend);
  }
  const parentView = await mustAnswer(
    prepared.parent.socket,
    'getPlanStatus',
    { plan_id: prepared.parent.planId },
    `${tag}-read`,
  );
  prepared.close();
  const outputsOfStep = new Map(parentView.steps.map((s) => [s.step_id, s.received_outputs]));
  const stepOfFlow = new Map([...prepared.flowOfStep].map(([key, flow]) => [flow, key.split(':')[1] as string]));
  const verdict = verifyFanin({
    flows,
    children,
    childDone,
    unblocks: seen,
    strays,
    outputKey: (flow, child) => planhubOutputKey(prepared, flow, child),
    finalOutputs: (flow) => outputsOfStep.get(stepOfFlow.get(flow) ?? ''),
    expectedOutput: childOutput,
  });
  const elapsedMs = (completed > 0 ? lastDone : performance.now()) - start;
  return {
    system: 'planhub',
    flows,
    children,
    inFlight: children * perSubagent,
    completed,
    elapsedMs,
    completionsPerSec: elapsedMs > 0 ? (completed * 1000) / elapsedMs : 0,
    refusals,
    unblocked: new Set(seen.map((u) => u.flow)).size,
    latency: summarize(histogram),
    ...verdict,
    timedOut,
    setupMs,
    loadAverage,
  };
};
