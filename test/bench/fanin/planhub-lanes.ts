import { answerRetrying } from './answers.ts';
import type { PlanhubFanin } from './planhub-setup.ts';
import { childOutput, lanesPerOwner, type FaninShape } from './shape.ts';

/** A child whose last attempt got no answer: it may have committed, so its flow is not judged. */
const UNKNOWN = 2;

/**
 * Longer than a call can take on the server (a transaction gives up after 64 optimistic attempts), so a slow call
 * surfaces as the server's own refusal; a shorter client timeout would resend calls still running and add to the
 * very contention it measures.
 */
const ACK_TIMEOUT_MS = 120_000;

export interface Completions {
  /** When each child's completion was first sent (index flow × children + child), for unblock latency. */
  firstSent: Float64Array;
  /** Whether child `child` of `flow` completed; undefined when its last attempt got no answer. */
  childDone: (flow: number, child: number) => boolean | undefined;
  completed: number;
  refusals: Record<string, number>;
  start: number;
  lastDone: number;
  lanes: number;
  timedOut: boolean;
}

/**
 * The measured phase: each subagent runs `inFlight / K` lanes, each lane completing the subagent's next step (in flow
 * order) with completeStepWithOutput, retrying refusals until the time bound.
 */
export const completeChildren = async (fanin: PlanhubFanin, tag: string, shape: FaninShape): Promise<Completions> => {
  const { flows, children } = shape;
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
    const sub = fanin.subagents[child];
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
          timeoutMs: ACK_TIMEOUT_MS,
          refusals,
          mayRetry: inTime,
          onFirstSend: (at) => (firstSent[slot] = at),
        },
      );
      if (answer.ok) {
        done[slot] = 1;
        completed += 1;
        lastDone = performance.now();
      } else if (answer.code === 'NO_ANSWER') done[slot] = UNKNOWN;
    }
  };
  const perSubagent = lanesPerOwner(shape.inFlight, children);
  await Promise.all(Array.from({ length: children * perSubagent }, (_, i) => lane(Math.floor(i / perSubagent))));
  return {
    firstSent,
    childDone: (flow, child) => {
      const state = done[flow * children + child];
      return state === UNKNOWN ? undefined : state === 1;
    },
    completed,
    refusals,
    start,
    lastDone,
    lanes: children * perSubagent,
    timedOut: completed < flows * children && !inTime(),
  };
};
