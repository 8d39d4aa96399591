import { connect } from '@planhub/client-sdk';
import { createServer } from '@planhub/server';
import { afterAll, describe, expect, it } from 'vitest';
import { startRedisProcess, type RedisProcess } from '../helpers/redis-process.ts';
import { captureLog } from '../security/support/capture-log.ts';

/** A fast heartbeat, so an outage of a second or two fails it many times over. */
const HEARTBEAT_MS = 100;

/**
 * What a node logs while Redis is down: every presence heartbeat failed and each failure was logged at warn with the
 * Redis client's stack (33 lines on one node in one outage, at a 2 s heartbeat). They are logged once a minute now,
 * with the reason and the count of the rest; the stack stays at debug.
 */
describe('presence failures during a Redis outage', () => {
  let redis: RedisProcess | undefined;
  afterAll(async () => redis?.dispose());

  it('are logged at warn once, not once per heartbeat', async () => {
    redis = await startRedisProcess();
    const capture = captureLog();
    const server = createServer(
      {
        port: 0,
        redisUrl: redis.url,
        redisPrefix: 'outage-logs',
        approvalPolicy: 'auto',
        presenceHeartbeatMs: HEARTBEAT_MS,
        storeDeadlineMs: 300,
      },
      { log: capture.log },
    );
    const { url } = await server.listen();
    const agent = await connect({ url, workspace: 'ws', agentId: 'a', retries: 0 });
    try {
      await redis.kill();
      const failures = () => capture.lines.filter((l) => l.msg === 'presence update failed');
      // Many heartbeats fail meanwhile: each one is logged at debug.
      const deadline = Date.now() + 10_000;
      while (failures().filter((l) => l.level === 20).length < 5 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(failures().filter((l) => l.level === 20).length).toBeGreaterThanOrEqual(5);
      const warned = failures().filter((l) => l.level === 40);
      expect(warned).toHaveLength(1);
      expect(warned[0]).toMatchObject({ reason: expect.any(String) as unknown });
      expect(warned[0]).not.toHaveProperty('err');
    } finally {
      agent.close();
      await server.close();
    }
  }, 60_000);
});
