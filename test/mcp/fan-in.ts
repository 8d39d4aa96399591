import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { EventEnvelope } from '@planhub/shared';
import { expect } from 'vitest';
import { callJson } from './mcp-clients.ts';

interface Waited {
  events: EventEnvelope[];
  last_event_id: string;
}

/** Calls waitForEvents until an event satisfies `done`; returns every event received on the way. */
export const waitUntil = async (client: Client, done: (e: EventEnvelope) => boolean): Promise<EventEnvelope[]> => {
  const seen: EventEnvelope[] = [];
  while (!seen.some(done)) seen.push(...(await callJson<Waited>(client, 'waitForEvents', { timeout: 30 })).events);
  return seen;
};

/**
 * The parent/subagent fan-in through MCP tools only (approval policy auto): the parent's step depends on one step of
 * each subagent, the subagents complete with outputs, and the parent's waitForEvents wakes with step_unblocked.
 */
export const runFanIn = async (parent: Client, subA: Client, subB: Client, ids: { a: string; b: string }) => {
  await callJson(parent, 'createPlan', { title: 'Ship the feature', steps: ['Spawn the subagents'] });
  expect(await callJson(parent, 'startPlan', {})).toMatchObject({ status: 'in_progress' });
  await callJson(parent, 'subscribeToTasks', { event_types: ['step_unblocked'] });
  await callJson(subA, 'createPlan', { title: 'Research', steps: ['Find the sources'] });
  await callJson(subB, 'createPlan', { title: 'Prototype', steps: ['Build the prototype'] });
  const merge = await callJson<{ step_id: string; status: string }>(parent, 'addDependentStep', {
    description: 'Merge the findings',
    depends_on: [
      { agent_id: ids.a, step_id: 'step_1' },
      { agent_id: ids.b, step_id: 'step_1' },
    ],
  });
  expect(merge.status).toBe('blocked');

  const outputs = { a: { sources: ['rfc.txt'] }, b: { passed: true, files: ['proto.ts'] } };
  await callJson(subA, 'startPlan', {});
  await callJson(subB, 'startPlan', {});
  await callJson(subA, 'completeStepWithOutput', { step_id: 'step_1', output: outputs.a, result: 'Found them' });
  await callJson(subB, 'completeStepWithOutput', { step_id: 'step_1', output: outputs.b, result: 'Built it' });

  const events = await waitUntil(parent, (e) => e.event_type === 'step_unblocked');
  const unblocked = events.filter((e) => e.event_type === 'step_unblocked');
  expect(unblocked).toHaveLength(1);
  expect(unblocked[0]).toMatchObject({ source_agent: 'parent', source_step_id: merge.step_id });
  expect([...(unblocked[0]?.payload.received_outputs as string[])].sort()).toEqual(
    [`${ids.a}:step_1`, `${ids.b}:step_1`].sort(),
  );
  const status = await callJson<{ steps: { step_id: string; status: string; received_outputs?: unknown }[] }>(
    parent,
    'getPlanStatus',
    {},
  );
  expect(status.steps.find((s) => s.step_id === merge.step_id)).toMatchObject({
    status: 'pending',
    received_outputs: { [`${ids.a}:step_1`]: outputs.a, [`${ids.b}:step_1`]: outputs.b },
  });
  // Each event is handed out once per session: nothing new is waiting.
  expect((await callJson<Waited>(parent, 'waitForEvents', { timeout: 0 })).events).toEqual([]);
};
