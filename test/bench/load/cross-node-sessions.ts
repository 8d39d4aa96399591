import type { EventEnvelope } from '@planhub/shared';
import type { Socket } from 'socket.io-client';
import { Arrivals } from './arrivals.ts';
import type { LoadSession, SessionFactory } from './sessions.ts';
import { planhubSessions } from './sessions.ts';
import { call, openAgent, openSocket } from './wire-client.ts';

/** An envelope-sized message, so the broadcast floor moves about as many bytes as a PlanHub event. */
const envelopeLike = (key: string) => ({
  key,
  event_type: 'step_completed',
  timestamp: new Date().toISOString(),
  workspace: 'bench-floor',
  source_agent: 'bench-agent',
  source_plan_id: 'abcd1234',
  source_plan_title: 'bench plan',
  source_step_id: 'step_1',
  source_step_description: 'work item 1',
  source_step_sequence: 1,
  payload: { result: 'done', error: null },
});

/** Broadcast floor: a client of node A emits, the adapter relays through Redis, a client of node B receives. */
export const broadcastSessions =
  (urlA: string, urlB: string): SessionFactory =>
  async (tag) => {
    const [a, b] = await Promise.all([openSocket(urlA), openSocket(urlB)]);
    const arrivals = new Arrivals();
    b.on('msg', (message: { key: string }) => arrivals.arrive(message.key));
    return {
      send(i) {
        const key = `${tag}:${i}`;
        const arrived = arrivals.wait(key);
        a.emit('pub', envelopeLike(key));
        return arrived;
      },
      close: () => [a, b].forEach((s) => s.close()),
    };
  };

/** An agent of node B subscribed to every agent's events of the given types, with arrivals keyed by `keyOf`. */
const watcher = async (
  url: string,
  workspace: string,
  agentId: string,
  types: string[],
  keyOf: (e: EventEnvelope) => string,
) => {
  const socket = await openAgent(url, workspace, agentId);
  const arrivals = new Arrivals();
  socket.on('event', (event: EventEnvelope) => arrivals.arrive(keyOf(event)));
  await call(socket, 'subscribeToTasks', { agent_id: '*', event_types: types as never });
  return { socket, arrivals };
};

/** Cross-node event delivery: agents on node A complete steps; a subscriber on node B receives step_completed. */
export const eventSessions =
  (options: { urlA: string; urlB: string; agents: number; steps: number }): SessionFactory =>
  async (tag) => {
    const workspace = `bench-events-${tag}`;
    const watch = await watcher(options.urlB, workspace, `${tag}-watch`, ['step_completed'], (e) =>
      [e.source_agent, e.source_plan_id, e.source_step_id].join(':'),
    );
    const load = await planhubSessions({
      url: options.urlA,
      agents: options.agents,
      steps: options.steps,
      workspace: () => Promise.resolve(workspace),
      observe: (agentId, planId, stepId) => watch.arrivals.wait([agentId, planId, stepId].join(':')),
    })(tag);
    return {
      send: (i) => load.send(i),
      close: () => {
        load.close();
        watch.socket.close();
      },
    };
  };

/**
 * Auto-unblock across nodes: subagent s_i (node A) completes step k with output; parent p_i (node B) has a step
 * waiting on exactly that step, which unblocks inside the same commit; a subscriber on node B receives its
 * step_unblocked. Each sample uses its own dependency, prepared before the run.
 */
export const unblockSessions =
  (options: { urlA: string; urlB: string; samples: number }): SessionFactory =>
  async (tag): Promise<LoadSession> => {
    const workspace = `bench-unblock-${tag}`;
    const pairs = Math.max(10, Math.ceil(options.samples / 150));
    const steps = Math.ceil(options.samples / pairs) + 1;
    const watch = await watcher(options.urlB, workspace, `${tag}-watch`, ['step_unblocked'], (e) =>
      [e.source_agent, e.source_step_id].join(':'),
    );
    const sockets: Socket[] = [watch.socket];
    const subagents: Socket[] = [];
    const waitingStep = new Map<string, string>();
    const preparePair = async (i: number) => {
      const subId = `${tag}-s${i}`;
      const parentId = `${tag}-p${i}`;
      const [sub, parent] = await Promise.all([
        openAgent(options.urlA, workspace, subId),
        openAgent(options.urlB, workspace, parentId),
      ]);
      sockets.push(sub, parent);
      subagents[i] = sub;
      const subPlan = await call(sub, 'createPlan', {
        title: 'subtask',
        steps: Array.from({ length: steps }, (_, k) => `part ${k + 1}`),
      });
      await call(sub, 'startPlan', { plan_id: subPlan.plan_id });
      const parentPlan = await call(parent, 'createPlan', { title: 'coordinate', steps: ['spawn subagents'] });
      await call(parent, 'startPlan', { plan_id: parentPlan.plan_id });
      for (let k = 1; k <= steps; k++) {
        const added = await call(parent, 'addDependentStep', {
          description: `use part ${k} of ${subId}`,
          depends_on: [{ agent_id: subId, step_id: `step_${k}`, plan_id: subPlan.plan_id }],
          plan_id: parentPlan.plan_id,
        });
        waitingStep.set(`${i}:${k}`, `${parentId}:${added.step_id}`);
      }
    };
    try {
      for (let i = 0; i < pairs; i += 5)
        await Promise.all(Array.from({ length: Math.min(5, pairs - i) }, (_, j) => preparePair(i + j)));
    } catch (err) {
      sockets.forEach((s) => s.close());
      throw err;
    }
    return {
      send(j) {
        const i = j % pairs;
        const k = Math.floor(j / pairs) + 1;
        const key = waitingStep.get(`${i}:${k}`);
        if (key === undefined) return Promise.reject(new Error(`sample ${j} has no prepared dependency`));
        const unblocked = watch.arrivals.wait(key);
        const acked = call(subagents[i] as Socket, 'completeStepWithOutput', {
          step_id: `step_${k}`,
          output: { sample: j, summary: 'part done' },
        });
        return Promise.all([acked, unblocked]).then(([, at]) => at);
      },
      close: () => sockets.forEach((s) => s.close()),
    };
  };
