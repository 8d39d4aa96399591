import { rmSync } from 'node:fs';
import type { PlanHubClient } from '@planhub/client-sdk';
import { connect } from '@planhub/client-sdk';
import type { EventEnvelope } from '@planhub/shared';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { startedPlan } from '../helpers/event-log.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { tempStorageDir } from '../helpers/stores.ts';

// Starting real server processes (node running the run's production bundle) takes seconds each on a loaded machine.
const PROCESS_TEST_MS = 120_000;
const WS = 'restarted';

const stallsOf = (events: readonly EventEnvelope[], planId: string) =>
  events.filter((e) => e.event_type === 'step_stalled' && e.source_plan_id === planId);

/**
 * The embedded store's presence outlives its process: after a SIGKILL and a restart the node still reports the
 * agents the crash cut off, and does not report again a stall it reported before (it used to keep both in memory).
 */
describe('a file-store node restarted after SIGKILL', () => {
  const dir = tempStorageDir();
  let node: ServerProcess | undefined;
  const clients: PlanHubClient[] = [];
  afterAll(async () => {
    for (const c of clients) c.close();
    await node?.stop('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'reports the agents a crash cut off, and each stall once',
    async () => {
      node = await startServerProcess({
        env: {
          PLANHUB_STORE: 'file',
          PLANHUB_STORAGE_PATH: dir,
          PLANHUB_APPROVAL_POLICY: 'auto',
          PLANHUB_STALL_AFTER_MS: '300',
          PLANHUB_PRESENCE_HEARTBEAT_MS: '100',
          REDIS_URL: '',
        },
      });
      const server = node;
      const client = async (agentId: string) => {
        const c = await connect({ url: server.url, agentId, workspace: WS, timeoutMs: 30_000 });
        clients.push(c);
        return c;
      };
      const slow = await client('slow');
      const first = await startedPlan(slow, 'first', ['long step']);
      await slow.setStepStatus({ step_id: 'step_1', status: 'in_progress' });
      const reader = await client('reader');
      const read = async () =>
        (await reader.getTaskEvents({ event_types: ['step_stalled', 'agent_online', 'agent_offline'] })).events;
      const presenceOf = async (type: string, agentId: string) =>
        (await read()).filter((e) => e.event_type === type && e.source_agent === agentId);
      await eventually(async () => expect(stallsOf(await read(), first.plan_id)).toHaveLength(1), { timeout: 20_000 });

      // Connected when the node dies, and never back: only the restarted node can say it went.
      const cutOff = await client('cut-off');
      await eventually(async () => expect(await presenceOf('agent_online', 'cut-off')).toHaveLength(1));
      expect(await server.stop('SIGKILL')).toBeNull();
      cutOff.close();
      await server.restart();

      const other = await client('other');
      const second = await startedPlan(other, 'second', ['another long step']);
      await other.setStepStatus({ step_id: 'step_1', status: 'in_progress' });
      // A stall check has run since the restart once the new stall is reported.
      await eventually(async () => expect(stallsOf(await read(), second.plan_id)).toHaveLength(1), { timeout: 20_000 });
      expect(stallsOf(await read(), first.plan_id)).toHaveLength(1);
      await eventually(async () =>
        expect((await presenceOf('agent_offline', 'cut-off')).map((e) => e.payload)).toMatchObject([
          { reason: 'node_lost' },
        ]),
      );
    },
    PROCESS_TEST_MS,
  );
});
