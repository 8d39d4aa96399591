import type { Socket } from 'socket.io-client';
import { call, openAgent } from '../load/wire-client.ts';

const STEPS = 100;

/**
 * One busy workspace: an agent completing step after step (each call commits and publishes one step_completed),
 * one call in flight, a new plan when one is used up. A dashboard on the same node watches it, so its events are
 * delivered somewhere; stop() ends the loop and closes both.
 */
export const startBusyWorkspace = async (url: string, workspace: string) => {
  const agent = await openAgent(url, workspace, 'busy-agent');
  const board = await openAgent(url, workspace, 'busy-board', 'dashboard');
  await call(board, 'subscribeToTasks', { event_types: ['step_completed'] });
  let stopped = false;
  let calls = 0;
  const loop = (async () => {
    while (!stopped) {
      const planId = await newPlan(agent);
      for (let step = 1; step <= STEPS && !stopped; step++) {
        await call(agent, 'setStepStatus', { step_id: `step_${step}`, status: 'completed', result: 'done' });
        calls += 1;
      }
      await call(agent, 'completePlan', { plan_id: planId, status: 'completed' });
    }
  })();
  // Held until stop(): a failed call ends the loop and is reported there, not as an unhandled rejection.
  const ended = loop.then(
    () => undefined,
    (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
  );
  return {
    calls: () => calls,
    async stop() {
      stopped = true;
      const err = await ended;
      agent.close();
      board.close();
      if (err !== undefined) throw err;
    },
  };
};

const newPlan = async (agent: Socket) => {
  const created = await call(agent, 'createPlan', {
    title: 'busy plan',
    steps: Array.from({ length: STEPS }, (_, i) => `work item ${i + 1}`),
  });
  await call(agent, 'startPlan', { plan_id: created.plan_id });
  return created.plan_id;
};
