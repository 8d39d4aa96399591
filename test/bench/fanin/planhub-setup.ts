import { MAX_ARRAY, type EventEnvelope } from '@planhub/shared';
import type { Socket } from 'socket.io-client';
import { openAgent } from '../load/wire-client.ts';
import { mustAnswer } from './answers.ts';
import type { FaninShape } from './shape.ts';

/** The prepared fan-in: K subagents with one started plan of F steps each, and a parent whose F steps wait on them. */
export interface PlanhubFanin {
  subagents: Array<{ socket: Socket; agentId: string; planId: string; stepIds: string[] }>;
  parent: { socket: Socket; agentId: string; planId: string };
  /** `${parent plan id}:${step id}` of each waiting parent step → its flow. */
  flowOfStep: Map<string, number>;
  close(): void;
}

/** The dependency key under which a parent step receives a child's output (`<agent_id>:<step_id>`). */
export const planhubOutputKey = (fanin: PlanhubFanin, flow: number, child: number): string => {
  const sub = fanin.subagents[child];
  return `${sub?.agentId}:${sub?.stepIds[flow]}`;
};

/** Setup is bounded like the measured phase: a server too slow to even prepare the run fails it, saying so. */
const checkDeadline = (deadline: number) => {
  if (performance.now() > deadline)
    throw new Error(`fan-in setup did not finish within the run's time bound (--fanin-timeout)`);
};

/** A subagent's started plan of one step per flow; returns its id and the step ids in flow order. */
export const startSubagentPlan = async (
  socket: Socket,
  tag: string,
  flows: number,
  deadline = Number.POSITIVE_INFINITY,
) => {
  const titles = Array.from({ length: flows }, (_, j) => `part for flow ${j}`);
  const created = await mustAnswer(
    socket,
    'createPlan',
    { title: 'subtask', steps: titles.slice(0, MAX_ARRAY) },
    `${tag}-create`,
  );
  await mustAnswer(socket, 'startPlan', { plan_id: created.plan_id }, `${tag}-start`);
  const stepIds = created.steps.map((s) => s.step_id);
  // createPlan takes at most MAX_ARRAY steps; the rest are appended one by one (addStep needs a started plan).
  for (let j = MAX_ARRAY; j < flows; j++) {
    checkDeadline(deadline);
    const added = await mustAnswer(
      socket,
      'addStep',
      { description: titles[j] as string, plan_id: created.plan_id },
      `${tag}-add${j}`,
    );
    stepIds.push(added.step.step_id);
  }
  return { planId: created.plan_id, stepIds };
};

/**
 * Creates the workspace of one run: the subagents' plans (started, steps pending), then the parent's plan with one
 * addDependentStep per flow naming the flow's K child steps, and the parent's subscription to its own
 * step_unblocked events (made before any child completes, as agents are told to).
 */
export const preparePlanhubFanin = async (
  url: string,
  tag: string,
  shape: FaninShape,
  onUnblocked: (event: EventEnvelope, at: number) => void,
): Promise<PlanhubFanin> => {
  const workspace = `bench-fanin-${tag}`;
  const deadline = performance.now() + shape.timeoutMs;
  const sockets: Socket[] = [];
  const open = async (agentId: string) => {
    const socket = await openAgent(url, workspace, agentId);
    sockets.push(socket);
    return socket;
  };
  try {
    const subagents = await Promise.all(
      Array.from({ length: shape.children }, async (_, k) => {
        const agentId = `${tag}-sub${k}`;
        const socket = await open(agentId);
        return { socket, agentId, ...(await startSubagentPlan(socket, `${tag}-sub${k}`, shape.flows, deadline)) };
      }),
    );
    const parentId = `${tag}-parent`;
    const socket = await open(parentId);
    socket.on('event', (event: EventEnvelope) => {
      if (event.event_type === 'step_unblocked') onUnblocked(event, performance.now());
    });
    await mustAnswer(
      socket,
      'subscribeToTasks',
      { agent_id: parentId, event_types: ['step_unblocked'] },
      `${tag}-subscribe`,
    );
    const plan = await mustAnswer(socket, 'createPlan', { title: 'merge', steps: ['spawn subagents'] }, `${tag}-plan`);
    await mustAnswer(socket, 'startPlan', { plan_id: plan.plan_id }, `${tag}-start`);
    const flowOfStep = new Map<string, number>();
    for (let j = 0; j < shape.flows; j++) {
      checkDeadline(deadline);
      const added = await mustAnswer(
        socket,
        'addDependentStep',
        {
          description: `merge the parts of flow ${j}`,
          plan_id: plan.plan_id,
          depends_on: subagents.map((s) => ({
            agent_id: s.agentId,
            step_id: s.stepIds[j] as string,
            plan_id: s.planId,
          })),
        },
        `${tag}-wait${j}`,
      );
      flowOfStep.set(`${plan.plan_id}:${added.step_id}`, j);
    }
    return {
      subagents,
      parent: { socket, agentId: parentId, planId: plan.plan_id },
      flowOfStep,
      close: () => sockets.forEach((s) => s.close()),
    };
  } catch (err) {
    sockets.forEach((s) => s.close());
    throw err;
  }
};
