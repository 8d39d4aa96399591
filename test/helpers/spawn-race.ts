import type { PlanHubClient } from '@planhub/client-sdk';
import { expect } from 'vitest';
import { startedPlan, unblocksOf } from './event-log.ts';

/** Connects an agent for one round (the caller chooses node and workspace). */
export type Connect = (agentId: string) => Promise<PlanHubClient>;

/**
 * One round of spawn-then-depend under a race: the parent adds `waits` dependent steps, each on the final step of
 * every subagent: the first before any subagent exists (depend at once, then spawn), the others while the `subs`
 * subagents connect, create their plans and finish them, all at once. Whatever
 * each dependency met (no agent yet, no step yet, a running step, an ended one), every waiting step must end up
 * ready with every output, announced by exactly one step_unblocked. Agents are fresh per round (`tag` in their
 * ids): an agent's earlier plan with the same step id would be found instead of waited for.
 */
export const spawnRaceRound = async (
  connect: Connect,
  options: { tag: string; subs: number; waits: number },
): Promise<void> => {
  const { tag, subs, waits } = options;
  const ids = Array.from({ length: subs }, (_, i) => `${tag}-sub${i}`);
  const parent = await connect(`${tag}-parent`);
  const own = await startedPlan(parent, tag, ['spawn the subagents']);
  const runSub = async (id: string, i: number) => {
    const sub = await connect(id);
    await startedPlan(sub, `${tag} ${id}`, ['work', 'report']);
    await sub.setStepStatus({ step_id: 'step_1', status: 'completed' });
    await sub.completeStepWithOutput({ step_id: 'step_2', output: { from: id, i } });
  };
  const addWait = (w: number) =>
    parent.addDependentStep({
      description: `merge ${w}`,
      depends_on: ids.map((id) => ({ agent_id: id, step_id: 'step_2' })),
    });
  const first = await addWait(0);
  expect(first.blocked_by).toEqual(ids.map((id) => ({ agent_id: id, step_id: 'step_2' })));
  const addOthers = async () => {
    const answers = [first];
    for (let w = 1; w < waits; w++) answers.push(await addWait(w));
    return answers;
  };
  const [answers] = await Promise.all([addOthers(), ...ids.map(runSub)]);

  const expected = Object.fromEntries(ids.map((id, i) => [`${id}:step_2`, { from: id, i }]));
  const status = await parent.getPlanStatus({});
  for (const answer of answers) {
    const step = status.steps.find((s) => s.step_id === answer.step_id);
    expect(step?.status).toBe('pending');
    expect(step?.blocked_by ?? []).toEqual([]);
    expect(step?.received_outputs).toEqual(expected);
    const events = await unblocksOf(parent, own.plan_id, answer.step_id);
    expect(events).toHaveLength(1);
    expect(events[0]?.payload.outputs).toEqual(expected);
    expect([...(events[0]?.payload.received_outputs as string[])].sort()).toEqual(Object.keys(expected).sort());
  }
};
