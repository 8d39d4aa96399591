import { preparePlanhubFanin } from '../fanin/planhub-setup.ts';
import { childOutput, lanesPerOwner } from '../fanin/shape.ts';
import { AgentSlot } from '../load/plan-agents.ts';
import { call, openAgent } from '../load/wire-client.ts';

/**
 * What the comparison loads each build with, as many operations as agents at once (closed loop):
 * - `step`: the bench's setStepStatus load (plans of `steps` steps, rolled over in the background as the bench does);
 * - `roll`: each agent creates, starts and completes a plan of `steps` steps, over and over;
 * - `fanin`: the bench's fan-in (`FANIN_CHILDREN` subagents, `flows` parent steps each waiting on one step of every
 *   subagent); one operation is one subagent's completeStepWithOutput, in flow order, `agents` in flight.
 */
export type Workload = 'step' | 'roll' | 'fanin';

/** Subagents of the fan-in load: K in the bench's fan-in scenario. */
export const FANIN_CHILDREN = 10;

/** Parent steps the fan-in load prepares per node and round unless `--flows` says otherwise. */
export const FANIN_FLOWS = 2000;

export interface LoadOptions {
  workload: Workload;
  agents: number;
  steps: number;
  /** Fan-in load: parent steps prepared per node and round, each completed once; the load fails when they run out. */
  flows?: number;
}

/** Fan-in loads opened so far by this process: each has a workspace of its own. */
let faninLoads = 0;

/**
 * The fan-in load: prepared before the windows (setup is not measured), then each lane completes its subagent's
 * next step. A completion that is the flow's last unblocks the parent's step, whose event reaches the parent.
 */
const openFaninLoad = async (url: string, options: LoadOptions): Promise<Load> => {
  const flows = options.flows ?? FANIN_FLOWS;
  const tag = `ab-fanin-${++faninLoads}`;
  const shape = { flows, children: FANIN_CHILDREN, inFlight: options.agents, timeoutMs: 600_000, graceMs: 0 };
  const fanin = await preparePlanhubFanin(url, tag, shape, () => {});
  const nextFlow = new Array<number>(FANIN_CHILDREN).fill(0);
  const perSubagent = lanesPerOwner(options.agents, FANIN_CHILDREN);
  const lanes = Array.from({ length: FANIN_CHILDREN * perSubagent }, (_, i) => Math.floor(i / perSubagent));
  return {
    ops: lanes.map((child) => async () => {
      const sub = fanin.subagents[child];
      const flow = nextFlow[child] ?? 0;
      if (!sub || flow >= flows)
        throw new Error(`the fan-in load ran out of its ${flows} flows: raise --flows (or shorten the windows)`);
      nextFlow[child] = flow + 1;
      await call(sub.socket, 'completeStepWithOutput', {
        plan_id: sub.planId,
        step_id: sub.stepIds[flow] as string,
        output: childOutput(flow, child),
      });
    }),
    close: () => fanin.close(),
  };
};

export interface Load {
  /** One operation per agent: the caller repeats each as fast as it is answered. */
  ops: Array<() => Promise<void>>;
  close(): void;
}

export const openLoad = async (url: string, options: LoadOptions): Promise<Load> => {
  const { agents, steps } = options;
  if (options.workload === 'fanin') return openFaninLoad(url, options);
  if (options.workload === 'roll') {
    const sockets = await Promise.all(Array.from({ length: agents }, (_, i) => openAgent(url, 'ab', `roller${i}`)));
    const items = Array.from({ length: steps }, (_, i) => `work item ${i + 1}`);
    return {
      ops: sockets.map((socket) => async () => {
        const created = await call(socket, 'createPlan', { title: 'ab plan', steps: items });
        await call(socket, 'startPlan', { plan_id: created.plan_id });
        await call(socket, 'completePlan', { plan_id: created.plan_id, status: 'completed' });
      }),
      close: () => sockets.forEach((socket) => socket.close()),
    };
  }
  // First plans of different sizes, as in the bench, so the agents roll over at different times.
  const slots = await Promise.all(
    Array.from({ length: agents }, (_, i) => AgentSlot.open(url, 'ab', `agent${i}`, steps, 1 + (i % steps))),
  );
  return {
    ops: slots.map((slot) => async () => void (await slot.send())),
    close: () => slots.forEach((slot) => slot.close()),
  };
};
