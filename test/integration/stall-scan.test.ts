import { connect, type PlanHubClient } from '@planhub/client-sdk';
import type { PlanHubServer } from '@planhub/server';
import { createMemoryStore, createServer } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';
import { readCounting } from '../helpers/read-counting-store.ts';

describe('the stall sweep', () => {
  let server: PlanHubServer;
  const clients: PlanHubClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await server.close();
  });

  it('reports a step left in progress, reading only steps in progress of the plans it scans', async () => {
    const { store, reads } = readCounting(createMemoryStore({ eventRetention: 1000 }));
    const { stepKeys } = reads;
    server = createServer(
      { port: 0, logLevel: 'silent', approvalPolicy: 'auto', presenceHeartbeatMs: 50, stallAfterMs: 300 },
      { store },
    );
    const url = (await server.listen()).url;
    const join = async (agentId: string) => {
      const c = await connect({ url, agentId, workspace: 'ws' });
      clients.push(c);
      return c;
    };
    const [busy, idle, board] = [await join('busy'), await join('idle'), await join('board')];
    // A long plan with nothing in progress, and a plan with a step left in progress.
    const names = Array.from({ length: 50 }, (_, i) => `step ${i + 1}`);
    const long = await idle.createPlan({ title: 'long', steps: names });
    await idle.startPlan({});
    await idle.setStepStatus({ step_id: 'step_1', status: 'completed' });
    await busy.createPlan({ title: 'stuck', steps: ['a', 'b'] });
    await busy.startPlan({});
    await busy.setStepStatus({ step_id: 'step_1', status: 'in_progress' });
    const started = stepKeys.length;

    const { events } = await board.getTaskEvents({ event_types: ['step_stalled'], timeout: 5 });
    expect(events.map((e) => [e.source_agent, e.source_step_id])).toEqual([['busy', 'step_1']]);
    // The long plan's steps were never read by the sweep: nothing of it is in progress.
    const sweepReads = stepKeys.slice(started);
    expect(sweepReads.filter((k) => k.startsWith(`step:${long.plan_id}:`))).toEqual([]);
    expect(sweepReads.length).toBeGreaterThan(0);
  });
});
