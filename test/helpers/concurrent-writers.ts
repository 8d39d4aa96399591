import type { PlanHubClient } from '@planhub/client-sdk';
import type { EventEnvelope } from '@planhub/shared';
import { expect } from 'vitest';
import { recordEvents, startedPlan, unblocksOf } from './event-log.ts';
import { rounds } from './stress.ts';

/** The workspace as the scenario reaches it: a client per agent (spread over nodes), and the nodes' conflict count. */
export interface WritersSite {
  client(agentId: string, index: number): Promise<PlanHubClient>;
  /** planhub_store_conflicts_total summed over every node. */
  conflicts(): Promise<number>;
}

/** Sums a counter over Prometheus text from each node. */
export const conflictsIn = (scrapes: readonly string[]): number =>
  scrapes
    .flatMap((text) => text.split('\n'))
    .filter((line) => line.startsWith('planhub_store_conflicts_total'))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);

const PARENTS = 4;
const K = 5;
const GROUP = 10;

/**
 * 50 writers at once in one workspace: PARENTS × K subagents completing the steps K-way fan-ins wait on, and GROUP
 * agents each for 003 updates of distinct tasks, todo writes and addStep on distinct plans. The fan-in part runs once
 * alone (its completions must not conflict at all) and once with everything else.
 */
export const runConcurrentWriters = async (site: WritersSite): Promise<void> => {
  const steps = rounds(3);
  let index = 0;
  const connect = (id: string) => site.client(id, index++);
  const parents = await Promise.all(Array.from({ length: PARENTS }, (_, p) => connect(`parent-${p}`)));
  const subIds = Array.from({ length: PARENTS * K }, (_, i) => `sub-${Math.floor(i / K)}-${i % K}`);
  const subs = await Promise.all(subIds.map(connect));
  const [taskers, todoers, adders] = await Promise.all(
    ['tasker', 'todoer', 'adder'].map((role) =>
      Promise.all(Array.from({ length: GROUP }, (_, i) => connect(`${role}-${i}`))),
    ),
  );
  if (!taskers || !todoers || !adders) throw new Error('no clients');

  const stepNames = Array.from({ length: steps * 2 }, (_, j) => `work ${j + 1}`);
  await Promise.all(subs.map((sub) => startedPlan(sub, 'Sub', stepNames)));
  const parentPlans = await Promise.all(parents.map((parent) => startedPlan(parent, 'Parent', stepNames)));
  // Parent step j waits on step j of each of its K subagents.
  for (const [p, parent] of parents.entries())
    for (let j = 1; j <= steps * 2; j++)
      await parent.addDependentStep({
        step_id: `step_${j}`,
        depends_on: subIds.slice(p * K, p * K + K).map((id) => ({ agent_id: id, step_id: `step_${j}` })),
      });
  const logs = parents.map((parent) => recordEvents(parent));
  await Promise.all(parents.map((parent) => parent.subscribeToTasks({ event_types: ['step_unblocked'] })));

  /** Each subagent completes steps `from..to` one after the other; all subagents at once. */
  const completeSteps = (from: number, to: number) =>
    Promise.all(
      subs.map(async (sub, i) => {
        for (let j = from; j <= to; j++)
          await sub.completeStepWithOutput({ step_id: `step_${j}`, output: { by: subIds[i], step: j } });
      }),
    );

  // Alone: K completions feeding one parent step, each on its first attempt.
  const before = await site.conflicts();
  await completeSteps(1, steps);
  expect(await site.conflicts()).toBe(before);

  // Creates at once, on every node: each draws an id of its own, so none re-runs and no two share an id.
  const beforeCreates = await site.conflicts();
  const tasks = await Promise.all(
    taskers.map((t, i) => t.TaskCreate({ subject: `Task ${i}`, description: 'started' }).then((r) => r.task.id)),
  );
  expect(await site.conflicts()).toBe(beforeCreates);
  expect(new Set(tasks).size).toBe(tasks.length);

  // Every subagent adds a step waiting on one step of parent-0, at once, on every node: none re-runs.
  const beforeWaits = await site.conflicts();
  const shared = { agent_id: 'parent-0', step_id: 'step_1', plan_id: parentPlans[0]?.plan_id };
  const waits = await Promise.all(
    subs.map((sub) => sub.addDependentStep({ description: 'Use the wrap-up', depends_on: [shared] })),
  );
  expect(await site.conflicts()).toBe(beforeWaits);
  for (const w of waits) expect(w.status).toBe('blocked');

  // Together with every other kind of writer.
  const writes = rounds(5);
  await Promise.all([
    completeSteps(steps + 1, steps * 2),
    ...taskers.map(async (t, i) => {
      for (let n = 1; n <= writes; n++)
        await t.TaskUpdate({ taskId: tasks[i] as string, description: `revision ${n}` });
    }),
    ...todoers.map(async (t) => {
      for (let n = 1; n <= writes; n++)
        await t.todo({
          action: 'update',
          todos: [{ content: `Revision ${n}`, activeForm: `Revising ${n}`, status: 'in_progress' }],
        });
    }),
    ...adders.map(async (a) => {
      await startedPlan(a, 'Adder', ['first']);
      for (let n = 1; n <= writes; n++) await a.addStep({ description: `added ${n}` });
    }),
  ]);

  // Exactly one step_unblocked per parent step, carrying every subagent's output; the steps show them all.
  for (const [p, parent] of parents.entries()) {
    const log = logs[p];
    if (!log) throw new Error('no log');
    const mine = () => log.of('step_unblocked').filter((e) => e.source_agent === `parent-${p}`);
    await log.next(() => mine().length >= steps * 2);
    const byStep = new Map<string, EventEnvelope[]>();
    for (const e of mine()) byStep.set(e.source_step_id ?? '', [...(byStep.get(e.source_step_id ?? '') ?? []), e]);
    expect([...byStep.keys()].sort()).toEqual(stepNames.map((_, j) => `step_${j + 1}`).sort());
    const own = subIds.slice(p * K, p * K + K);
    for (const [stepId, events] of byStep) {
      expect(events).toHaveLength(1);
      expect(events[0]?.payload.received_outputs).toEqual(own.map((id) => `${id}:${stepId}`).sort());
    }
    const status = await parent.getPlanStatus({ plan_id: parentPlans[p]?.plan_id });
    for (const step of status.steps) {
      expect(step).toMatchObject({ status: 'pending', blocked_by: [] });
      expect(Object.keys(step.received_outputs ?? {}).sort()).toEqual(own.map((id) => `${id}:${step.step_id}`).sort());
    }
  }
  // The shared step's end unblocks each of its waiters exactly once.
  const ended = await (parents[0] as PlanHubClient).completeStepWithOutput({
    step_id: 'step_1',
    output: { wrapped: true },
  });
  expect(ended.unblocked.map((w) => w.agent_id).sort()).toEqual([...subIds].sort());
  for (const [i, sub] of subs.entries()) {
    const events = await unblocksOf(sub, waits[i]?.plan_id ?? '', waits[i]?.step_id ?? '');
    expect(events).toHaveLength(1);
    expect(events[0]?.payload.outputs).toEqual({ 'parent-0:step_1': { wrapped: true } });
  }
  // No lost update anywhere.
  for (const [i, t] of taskers.entries())
    expect((await t.TaskGet({ taskId: tasks[i] as string })).task?.description).toBe(`revision ${writes}`);
  for (const t of todoers)
    expect((await t.todo({ action: 'list' })).todos.map((x) => x.content)).toEqual([`Revision ${writes}`]);
  for (const a of adders)
    expect((await a.getPlanStatus({})).steps.map((s) => s.description)).toEqual([
      'first',
      ...Array.from({ length: writes }, (_, n) => `added ${n + 1}`),
    ]);
};
