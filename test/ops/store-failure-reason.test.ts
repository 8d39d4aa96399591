import { createServer, type PlanHubServer } from '@planhub/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { monitorStore } from '../../server/src/ops/store-monitor.ts';
import { captureLog } from '../security/support/capture-log.ts';
import { eventually } from '../helpers/eventually.ts';
import { startRedisProcess, type RedisProcess } from '../helpers/redis-process.ts';
import { uniquePrefix } from '../helpers/servers.ts';

describe('why the store is unreachable', () => {
  afterEach(() => void vi.useRealTimers());

  it('is on the monitor line, its summaries and its health', async () => {
    vi.useFakeTimers();
    const capture = captureLog();
    const monitor = monitorStore({
      ping: () => Promise.reject(new Error('unavailable')),
      log: capture.log,
      name: 'Redis at redis://r:6379',
      intervalMs: 1000,
      summaryMs: 5000,
      reason: () => 'WRONGPASS invalid username-password pair or user is disabled.',
    });
    monitor.start();
    await vi.advanceTimersByTimeAsync(6000);
    monitor.stop();
    expect(capture.lines.map((l) => [l.msg.replace(/:.*/, ''), l.reason])).toEqual([
      ['Redis at redis', 'WRONGPASS invalid username-password pair or user is disabled.'],
      ['Redis at redis', 'WRONGPASS invalid username-password pair or user is disabled.'],
    ]);
    expect(monitor.health()).toMatchObject({
      reachable: false,
      reason: expect.stringMatching(/^WRONGPASS/) as unknown,
    });
  });

  describe('with a wrong Redis password', () => {
    let redis: RedisProcess | undefined;
    let server: PlanHubServer | undefined;
    afterEach(async () => {
      await server?.close();
      await redis?.dispose();
      server = redis = undefined;
    });

    it('logs WRONGPASS at warn and /readyz gives it as the cause, without the password', async () => {
      redis = await startRedisProcess({ args: ['--requirepass', 'the-right-password'] });
      const capture = captureLog();
      server = createServer(
        { port: 0, redisUrl: `redis://:not-the-password@127.0.0.1:${redis.port}`, redisPrefix: uniquePrefix() },
        { log: capture.log },
      );
      const { url } = await server.listen();
      await eventually(() =>
        expect(capture.lines.some((l) => l.level === 40 && /WRONGPASS/.test(String(l.reason)))).toBe(true),
      );
      await eventually(() =>
        expect(capture.lines.find((l) => /unreachable at startup/.test(l.msg))?.reason).toMatch(/^WRONGPASS/),
      );
      const res = await fetch(`${url}/readyz`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { reason: string; message: string; cause: string };
      expect(body.reason).toBe('store_unreachable');
      expect(body.cause).toMatch(/^WRONGPASS/);
      expect(body.message).toMatch(/^Redis is unreachable \(WRONGPASS/);
      expect(JSON.stringify(body)).not.toContain('not-the-password');
      expect(capture.text()).not.toContain('not-the-password');
    });
  });
});
