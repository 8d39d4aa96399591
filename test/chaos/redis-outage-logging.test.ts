import { connect } from '@planhub/client-sdk';
import { createLogger, createServer } from '@planhub/server';
import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { startRedisProcess } from '../helpers/redis-process.ts';
import { rounds } from '../helpers/stress.ts';

/** Calls made while Redis is down; the lines logged must not grow with them. */
const FAILED_CALLS = rounds(400);
/** What one outage may log at warn or above: each connection's loss, the monitor's line, a summary or two. */
const MAX_LINES = 12;

describe('a Redis outage in the logs', () => {
  it('logs a handful of lines, however many calls fail meanwhile', async () => {
    // Durable: a restart keeps the data (one that came back empty would be a data loss, not an outage).
    const redis = await startRedisProcess({ durable: true });
    const lines: string[] = [];
    const log = createLogger('info', { write: (line: string) => void lines.push(line) });
    const server = createServer(
      {
        port: 0,
        redisUrl: redis.url,
        redisPrefix: 'quiet',
        approvalPolicy: 'auto',
        limits: { callsPerSecond: 100_000 },
      },
      { log },
    );
    const { url } = await server.listen();
    const agent = await connect({ url, workspace: 'ws', agentId: 'main', retries: 0 });
    const watcher = await connect({ url, workspace: 'ws', agentId: 'watcher', retries: 0 });
    try {
      await agent.createPlan({ title: 'Quiet', steps: ['one'] });
      await watcher.subscribeToTasks({ event_types: ['step_completed'] });
      const ready = async () => (await fetch(`${url}/readyz`)).status;

      await redis.kill();
      let failed = 0;
      while (failed < FAILED_CALLS) {
        const outcomes = await Promise.allSettled([
          agent.getPlanStatus({}),
          agent.setStepStatus({ step_id: 'step_1', status: 'in_progress' }),
          watcher.getTaskEvents({ limit: 5 }),
          agent.addStep({ description: 'during the outage' }),
        ]);
        failed += outcomes.filter((o) => o.status === 'rejected').length;
      }
      await eventually(async () => expect(await ready()).toBe(503));
      // The monitor's own check must see the outage too (calls may fail faster than its interval).
      await eventually(() => expect(lines.some((line) => line.includes('is unreachable'))).toBe(true));
      await redis.start();
      await eventually(async () => expect(await ready()).toBe(200));
      // The monitor's own next check logs the recovery, once.
      await eventually(() => expect(lines.filter((line) => line.includes('reachable again'))).toHaveLength(1));

      const loud = lines.filter((line) => /"level":(40|50|60)/.test(line));
      expect(loud.length, loud.join('\n')).toBeLessThanOrEqual(MAX_LINES);
    } finally {
      agent.close();
      watcher.close();
      await server.close();
      await redis.dispose();
    }
  });
});
