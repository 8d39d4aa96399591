import { AgentSlot } from '../load/plan-agents.ts';
import { call, openAgent } from '../load/wire-client.ts';

/**
 * What the comparison loads each build with, as many operations as agents at once (closed loop):
 * - `step`: the bench's setStepStatus load (plans of `steps` steps, rolled over in the background as the bench does);
 * - `roll`: each agent creates, starts and completes a plan of `steps` steps, over and over.
 */
export type Workload = 'step' | 'roll';

export interface LoadOptions {
  workload: Workload;
  agents: number;
  steps: number;
}

export interface Load {
  /** One operation per agent: the caller repeats each as fast as it is answered. */
  ops: Array<() => Promise<void>>;
  close(): void;
}

export const openLoad = async (url: string, options: LoadOptions): Promise<Load> => {
  const { agents, steps } = options;
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
