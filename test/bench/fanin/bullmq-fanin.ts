import { FlowProducer, Queue, Worker, type Job } from 'bullmq';
import { currentLoad } from '../report/machine.ts';
import { newHistogram, recordMs, summarize } from '../stats/histogram.ts';
import { childOutput, lanesPerOwner, type FaninOutcome, type FaninShape } from './shape.ts';
import { verifyFanin, type UnblockSeen } from './verify.ts';

/** BullMQ's keys live under their own prefix on the bench's Redis, apart from PlanHub's. */
export const BULLMQ_PREFIX = 'bench-bullmq';

interface ChildData {
  flow: number;
  child: number;
}

const connectionOf = (redisUrl: string) => {
  const url = new URL(redisUrl);
  return { host: url.hostname, port: Number(url.port || 6379), maxRetriesPerRequest: null };
};

const FLOWS_PER_BATCH = 100;

/**
 * The same fan-in on BullMQ's FlowProducer: F flows, each a parent job with K children. K workers of
 * `inFlight / K` concurrency each (as many as PlanHub's subagents, with as many completions in flight) complete
 * the children, returning the same output; a parent worker records when each parent is handed to it, i.e. when
 * BullMQ's "last child moves the parent" has made it processable. The queues are removed afterwards.
 */
export const runBullmqFanin = async (redisUrl: string, tag: string, shape: FaninShape): Promise<FaninOutcome> => {
  const { flows, children } = shape;
  const loadAverage = currentLoad();
  const connection = connectionOf(redisUrl);
  const common = { connection, prefix: BULLMQ_PREFIX };
  const childQueue = `fanin-children-${tag}`;
  const parentQueue = `fanin-parents-${tag}`;
  const setupStart = performance.now();
  const producer = new FlowProducer(common);
  const queues = [new Queue(childQueue, common), new Queue(parentQueue, common)];
  const workers: Worker[] = [];
  try {
    for (let first = 0; first < flows; first += FLOWS_PER_BATCH)
      await producer.addBulk(
        Array.from({ length: Math.min(FLOWS_PER_BATCH, flows - first) }, (_, i) => ({
          name: 'merge',
          queueName: parentQueue,
          data: { flow: first + i },
          children: Array.from({ length: children }, (_, child) => ({
            name: 'part',
            queueName: childQueue,
            data: { flow: first + i, child } satisfies ChildData,
          })),
        })),
      );
    const setupMs = performance.now() - setupStart;

    const returnedAt = new Float64Array(flows * children);
    const done = new Uint8Array(flows * children);
    const refusals: Record<string, number> = {};
    const unblocks: Array<UnblockSeen & { at: number }> = [];
    const finalOutputs = new Map<number, Record<string, unknown>>();
    let completed = 0;
    let lastDone = 0;
    let settled = () => {};
    const finished = new Promise<void>((resolve) => (settled = resolve));
    const check = () => {
      if (completed === flows * children && unblocks.length >= flows) settled();
    };

    const perWorker = lanesPerOwner(shape.inFlight, children);
    for (let w = 0; w < children; w++) {
      const worker = new Worker<ChildData>(
        childQueue,
        (job: Job<ChildData>) => {
          returnedAt[job.data.flow * children + job.data.child] = performance.now();
          return Promise.resolve(childOutput(job.data.flow, job.data.child));
        },
        { ...common, concurrency: perWorker, autorun: false },
      );
      worker.on('completed', (job: Job<ChildData>) => {
        done[job.data.flow * children + job.data.child] = 1;
        completed += 1;
        lastDone = performance.now();
        check();
      });
      worker.on('failed', () => (refusals.FAILED = (refusals.FAILED ?? 0) + 1));
      workers.push(worker);
    }
    const parents = new Worker<{ flow: number }>(
      parentQueue,
      async (job) => {
        const at = performance.now();
        const values = await job.getChildrenValues<ReturnType<typeof childOutput>>();
        // Keyed by child job key; re-keyed by (flow, child) from the value, then checked against what was sent.
        const outputs: Record<string, unknown> = {};
        for (const value of Object.values(values)) outputs[`${value.flow}:${value.child}`] = value;
        finalOutputs.set(job.data.flow, outputs);
        unblocks.push({ flow: job.data.flow, outputs: Object.keys(outputs), at });
        check();
      },
      { ...common, concurrency: Math.max(1, shape.inFlight), autorun: false },
    );
    workers.push(parents);
    await Promise.all(workers.map((w) => w.waitUntilReady()));

    const start = performance.now();
    for (const w of workers) void w.run();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ranOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), shape.timeoutMs)));
    let timedOut = (await Promise.race([finished, ranOut])) === 'timeout';
    clearTimeout(timer);
    if (!timedOut || completed === flows * children) {
      const grace = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), shape.graceMs)));
      await Promise.race([finished, grace]);
      clearTimeout(timer);
      timedOut = false;
    }
    await Promise.all(workers.map((w) => w.close(true)));

    const histogram = newHistogram();
    for (const u of unblocks) {
      let lastReturn = 0;
      for (let child = 0; child < children; child++)
        lastReturn = Math.max(lastReturn, returnedAt[u.flow * children + child] as number);
      recordMs(histogram, u.at - lastReturn);
    }
    const verdict = verifyFanin({
      flows,
      children,
      childDone: (flow, child) => done[flow * children + child] === 1,
      unblocks,
      strays: 0,
      outputKey: (flow, child) => `${flow}:${child}`,
      finalOutputs: (flow) => finalOutputs.get(flow),
      expectedOutput: childOutput,
    });
    const elapsedMs = (completed > 0 ? lastDone : performance.now()) - start;
    return {
      system: 'bullmq',
      flows,
      children,
      inFlight: children * perWorker,
      completed,
      elapsedMs,
      completionsPerSec: elapsedMs > 0 ? (completed * 1000) / elapsedMs : 0,
      refusals,
      unblocked: new Set(unblocks.map((u) => u.flow)).size,
      latency: summarize(histogram),
      ...verdict,
      timedOut,
      setupMs,
      loadAverage,
    };
  } finally {
    await Promise.all(workers.map((w) => w.close(true)));
    for (const q of queues) await q.obliterate({ force: true }).catch(() => undefined);
    await Promise.all([producer.close(), ...queues.map((q) => q.close())]);
  }
};
