import type { PlanHubClient } from '@planhub/client-sdk';
import { startedPlan } from './event-log.ts';

/** The four agents of a round, by role (see `raceCycleAcrossDisjointSteps`). */
export interface CycleRaceAgents {
  w: PlanHubClient;
  x: PlanHubClient;
  y: PlanHubClient;
  z: PlanHubClient;
}

const all = (agents: CycleRaceAgents): PlanHubClient[] => [agents.w, agents.x, agents.y, agents.z];

const waitOn = (client: PlanHubClient, agentId: string) =>
  client.addDependentStep({ step_id: 'step_1', depends_on: [{ agent_id: agentId, step_id: 'step_1' }] });

/**
 * Each agent starts a one-step plan; x's step waits on y's and z's on w's. Then w's step waits on x's and y's on
 * z's, at once: together they would close w→x→y→z→w, each alone is fine. The two additions write and check no
 * common plan or step document (each walks through the other's waiting step, whose edges it reads), so only the
 * cycle check's own concurrency can refuse one. Returns how each of the two ended ('ok' or the refusal's code).
 */
export const raceCycleAcrossDisjointSteps = async (
  agents: CycleRaceAgents,
  ids: Record<keyof CycleRaceAgents, string>,
  round: number,
): Promise<string[]> => {
  await Promise.all(all(agents).map((agent) => startedPlan(agent, `cycle round ${round}`, ['one'])));
  await Promise.all([waitOn(agents.x, ids.y), waitOn(agents.z, ids.w)]);
  return Promise.all(
    [waitOn(agents.w, ids.x), waitOn(agents.y, ids.z)].map((p) =>
      p.then(
        () => 'ok',
        (err: { code?: string; message?: string }) => err.code ?? err.message ?? 'unknown',
      ),
    ),
  );
};

/** Ends each agent's plan, so the next round starts fresh ones. */
export const endRound = (agents: CycleRaceAgents) =>
  Promise.all(all(agents).map((agent) => agent.completePlan({ status: 'failed', summary: 'round over' })));
