import { createServer, type PlanHubServer } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';
import { redactUrl } from '../../server/src/config-error.ts';
import { parseConfig } from '../../server/src/config.ts';
import { captureLog } from '../security/support/capture-log.ts';
import { eventually } from '../helpers/eventually.ts';
import { refusingPort } from '../helpers/free-port.ts';
import { uniquePrefix } from '../helpers/servers.ts';

describe('a Redis URL shown in an error, a log line or /readyz', () => {
  it.each([
    ['redis://:hunter2@cache:6379', 'redis://:***@cache:6379'],
    ['redis://app:hunter2@cache:6379/0', 'redis://app:***@cache:6379/0'],
    ['redis://hunter2@cache:6379', 'redis://***@cache:6379'],
    ['redis://cache:6379/0?password=hunter2', 'redis://cache:6379/0?password=***'],
    ['redis://cache:6379/0?username=app&password=hunter2&db=2', 'redis://cache:6379/0?username=***&password=***&db=2'],
    ['redis://cache:6379?sentinelPassword=hunter2', 'redis://cache:6379?sentinelPassword=***'],
    ['cache:6379?password=hunter2', 'cache:6379?password=***'],
  ])('masks every credential of %s', (url, masked) => {
    expect(redactUrl(url)).toBe(masked);
  });

  it('keeps a query password out of a configuration error', () => {
    expect(() => parseConfig({ redisUrl: 'http://cache:6379/0?password=hunter2' })).toThrow(
      /redisUrl is "http:\/\/cache:6379\/0\?password=\*\*\*"/,
    );
    expect(() => parseConfig({ redisUrl: 'http://cache:6379/0?password=hunter2' })).not.toThrow(/hunter2/);
  });

  describe('of a running node', () => {
    let server: PlanHubServer | undefined;
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });

    it('logs the URL with its query password masked, and /readyz names neither the password nor the address', async () => {
      const port = await refusingPort();
      const capture = captureLog();
      server = createServer(
        { port: 0, redisUrl: `redis://127.0.0.1:${port}/0?password=hunter2-query`, redisPrefix: uniquePrefix() },
        { log: capture.log },
      );
      const { url } = await server.listen();
      await eventually(() => expect(capture.text()).toMatch(/unreachable at startup/));
      expect(capture.text()).toContain(`Redis at redis://127.0.0.1:${port}/0?password=***`);
      const res = await fetch(`${url}/readyz`);
      expect(res.status).toBe(503);
      const body = await res.text();
      expect(body).toMatch(/"reason":"store_unreachable"/);
      expect(body).not.toContain('hunter2');
      // /readyz answers anyone who reaches the balancer: it says what is down, not where it runs.
      expect(body).not.toContain(String(port));
      expect(body).not.toContain('127.0.0.1');
      expect(capture.text()).not.toContain('hunter2');
    });
  });
});
