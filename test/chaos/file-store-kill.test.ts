import { rmSync } from 'node:fs';
import type { PlanHubClient } from '@planhub/client-sdk';
import { connect } from '@planhub/client-sdk';
import type { EventEnvelope } from '@planhub/shared';
import { compareEventIds } from '@planhub/shared';
import { createFileStore } from '@planhub/server';
import { afterAll, describe, expect, it } from 'vitest';
import { startedPlan } from '../helpers/event-log.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { tempStorageDir } from '../helpers/stores.ts';
import { rounds } from '../helpers/stress.ts';

// Starting real server processes (tsx) takes seconds each on a loaded machine.
const PROCESS_TEST_MS = 120_000;

const WS = 'durable';

/** The durable store's promise, tested on a real process: an acknowledged call survives SIGKILL. */
describe('a file-store node killed with SIGKILL under load', () => {
  const dir = tempStorageDir();
  let node: ServerProcess | undefined;
  const clients: PlanHubClient[] = [];
  afterAll(async () => {
    for (const c of clients) c.close();
    await node?.stop('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'keeps every acknowledged call, applies each retried call once, and serves on after a restart',
    async () => {
      const AGENTS = rounds(4);
      const STEPS = 6;
      node = await startServerProcess({
        env: { PLANHUB_STORE: 'file', PLANHUB_STORAGE_PATH: dir, PLANHUB_APPROVAL_POLICY: 'auto', REDIS_URL: '' },
      });
      const server = node;
      const agents = await Promise.all(
        Array.from({ length: AGENTS }, async (_, i) => {
          // Long enough per call to outlast the restart (the SDK resends an unanswered call with its request_id).
          const client = await connect({ url: server.url, agentId: `agent-${i}`, workspace: WS, timeoutMs: 60_000 });
          clients.push(client);
          return client;
        }),
      );

      // Every acknowledged step completion, and the ones acknowledged before the kill was sent.
      const acked: string[] = [];
      const total = AGENTS * STEPS;
      let reachedHalf: () => void = () => undefined;
      const half = new Promise<void>((resolve) => (reachedHalf = resolve));
      const plans = await Promise.all(agents.map((a, i) => startedPlan(a, `plan ${i}`, stepNames(STEPS))));
      const work = agents.map(async (agent, i) => {
        for (const [k, step] of plans[i]!.steps.entries()) {
          await agent.setStepStatus({ step_id: step.step_id, status: 'in_progress' });
          await agent.completeStepWithOutput({ step_id: step.step_id, output: { agent: i, step: k } });
          acked.push(`agent-${i}:${step.step_id}`);
          if (acked.length >= total / 2) reachedHalf();
        }
      });

      await half;
      const ackedAtKill = [...acked];
      expect(await server.stop('SIGKILL')).toBeNull();
      await server.restart();
      await Promise.all(work);
      expect(ackedAtKill.length).toBeLessThan(total);

      // Every plan as its agent left it, and the node serves on: the plan is closed and a new one made.
      for (const [i, agent] of agents.entries()) {
        const plan = await agent.getPlanStatus({ plan_id: plans[i]!.plan_id });
        expect(plan.steps.map((s) => [s.status, s.output])).toEqual(
          plan.steps.map((_, k) => ['completed', { agent: i, step: k }]),
        );
      }
      await agents[0]!.completePlan({ status: 'completed' });
      const late = await agents[0]!.createPlan({ title: 'after the crash', steps: ['one'] });
      expect(late.plan_id).toBeTruthy();

      // The log on disk, read after a graceful stop: each completion once (the retries replayed the remembered
      // answer), every acknowledged one present, ids strictly increasing.
      for (const c of clients) c.close();
      await server.stop('SIGTERM');
      node = undefined;
      const store = createFileStore({ path: dir, eventRetention: 10_000 });
      let events: EventEnvelope[];
      try {
        events = await store.readEvents(WS, { after: '0-0', count: 100_000 });
      } finally {
        await store.close();
      }
      const completed = events
        .filter((e) => e.event_type === 'step_completed')
        .map((e) => `${e.source_agent}:${e.source_step_id}`);
      expect(completed.sort()).toEqual([...acked].sort());
      expect(new Set(completed).size).toBe(total);
      for (const key of ackedAtKill) expect(completed).toContain(key);
      for (let i = 1; i < events.length; i++)
        expect(compareEventIds(events[i]!.event_id, events[i - 1]!.event_id)).toBeGreaterThan(0);
    },
    PROCESS_TEST_MS,
  );
});

const stepNames = (n: number) => Array.from({ length: n }, (_, k) => `step ${k + 1}`);
