import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, mintToken, type PlanHubServer } from '@planhub/server';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { captureLog } from '../security/support/capture-log.ts';
import { eventually } from '../helpers/eventually.ts';
import { refusingPort } from '../helpers/free-port.ts';
import { uniquePrefix } from '../helpers/servers.ts';
import { SOURCE_ENTRY, runMain, type MainRun } from './run-main.ts';

const SECRET = 'operator-runtime-secret-0123456789';

describe('a node started by an operator', () => {
  const runs: MainRun[] = [];
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    await Promise.all(runs.splice(0).map((r) => r.stop()));
    for (const c of cleanups.splice(0)) await c();
  });

  it('names the dashboard URL at startup, and GET / leads there with the query kept', async () => {
    // Started from the sources, as `pnpm start` does (every other node of the suite runs the built bundle).
    const run = runMain({}, SOURCE_ENTRY);
    runs.push(run);
    const line = await run.line(/PlanHub listening/);
    const { url, dashboard } = JSON.parse(line) as { url: string; dashboard: string };
    expect(dashboard).toBe(`${url}/dashboard`);
    expect(line).toContain(`dashboard at ${url}/dashboard`);
    const res = await fetch(`${url}/?workspace=team`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/dashboard?workspace=team');
    // A token in the query is not repeated into the next request line (the dashboard reads only #token=).
    const withToken = await fetch(`${url}/?token=secret-ish&workspace=team`, { redirect: 'manual' });
    expect(withToken.headers.get('location')).toBe('/dashboard?workspace=team');
    expect((await fetch(url)).url).toBe(`${url}/dashboard`);
  });

  it('logs an unreachable Redis at startup, answers /readyz 503 with the reason, and logs its return', async () => {
    // Refusing, and kept free for the redis-server started on it below: outside the range listen(0) hands out.
    const port = await refusingPort();
    const run = runMain({ REDIS_URL: `redis://:pw-not-in-logs@127.0.0.1:${port}` });
    runs.push(run);
    const listening = JSON.parse(await run.line(/PlanHub listening/)) as { url: string };
    const down = await run.line(/unreachable at startup/);
    expect(JSON.parse(down)).toMatchObject({
      level: 50,
      msg: `Redis at redis://:***@127.0.0.1:${port} is unreachable at startup: calls answer UNAVAILABLE and /readyz answers 503 until it is back (checking every few seconds)`,
    });
    const res = await fetch(`${listening.url}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({
      status: 'unavailable',
      reason: 'store_unreachable',
      // Never the address: anyone who reaches the balancer may ask (the logs name the masked URL).
      message: 'Redis is unreachable (ECONNREFUSED); calls answer UNAVAILABLE until it is back.',
      since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
    });

    const dir = mkdtempSync(join(tmpdir(), 'planhub-redis-'));
    const redis = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--requirepass', 'pw-not-in-logs'],
      { stdio: 'ignore' },
    );
    cleanups.push(async () => {
      const exited = new Promise((r) => redis.once('exit', r));
      redis.kill('SIGKILL');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    });
    expect(JSON.parse(await run.line(/reachable again/))).toMatchObject({ level: 30 });
    await eventually(async () => expect((await fetch(`${listening.url}/readyz`)).status).toBe(200));
    expect(await (await fetch(`${listening.url}/readyz`)).json()).toEqual({ status: 'ready' });
    // One line when it went down, one when it came back: the checks in between are not logged one by one.
    const outageLines = run.stdout.filter((l) => /unreachable|reachable again/.test(l));
    expect(outageLines.length).toBeLessThanOrEqual(3);
    expect(run.stdout.join('\n')).not.toContain('pw-not-in-logs');
  });
});

describe('/metrics', () => {
  let node: PlanHubServer | undefined;
  afterEach(async () => node?.close());

  const start = async (config: Parameters<typeof createServer>[0]) => {
    node = createServer({ port: 0, logLevel: 'silent', ...config });
    return (await node.listen()).url;
  };
  const scrape = (url: string, token?: string) =>
    fetch(`${url}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  const token = (role: 'agent' | 'user' | 'dashboard') =>
    mintToken(SECRET, { workspace: 'ops', agent_id: 'prometheus', role }, '1h');

  it('refuses a revoked token, as the socket handshake and /mcp do', async () => {
    const url = await start({ secret: SECRET });
    const scraper = await token('dashboard');
    expect((await scrape(url, scraper)).status).toBe(200);
    const revoked = await fetch(`${url}/tokens/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: scraper }),
    });
    expect(revoked.status).toBe(200);
    const after = await scrape(url, scraper);
    expect([after.status, await after.json()]).toEqual([
      401,
      {
        ok: false,
        error: { code: 'UNAUTHENTICATED', message: expect.stringMatching(/^Token has been revoked/) as unknown },
      },
    ]);
    expect((await scrape(url, await token('dashboard'))).status).toBe(200);
  });

  it('in secret mode needs a user or dashboard token, and says how to get one', async () => {
    const url = await start({ secret: SECRET });
    const none = await scrape(url);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(await none.text()).toMatch(/\/metrics needs a token: send Authorization: Bearer <token>.*--role dashboard/);
    const agent = await scrape(url, await token('agent'));
    expect([agent.status, await agent.text()]).toEqual([403, expect.stringMatching(/role agent cannot read/)]);
    const forged = await scrape(
      url,
      await mintToken('another-secret-0123456789', { workspace: 'ops', agent_id: 'p', role: 'user' }, '1h'),
    );
    expect([forged.status, await forged.text()]).toEqual([401, expect.stringMatching(/signature does not verify/)]);
    for (const role of ['user', 'dashboard'] as const) {
      const ok = await scrape(url, await token(role));
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('planhub_calls_total');
    }
  });

  it('accepts PLANHUB_METRICS_TOKEN in either mode and refuses anything else once it is set', async () => {
    const metricsToken = 'scrape-token-0123456789-abcdef';
    const url = await start({ metricsToken });
    expect((await scrape(url)).status).toBe(401);
    expect((await scrape(url, 'scrape-token-wrong')).status).toBe(401);
    expect((await scrape(url, metricsToken)).status).toBe(200);
  });

  it('stays open in open mode without a metrics token (open mode listens on loopback only)', async () => {
    const url = await start({});
    expect((await scrape(url)).status).toBe(200);
  });
});

describe('log lines', () => {
  it('carry each key once, including the Redis event feed inside the Redis store', async () => {
    const capture = captureLog();
    const prefix = uniquePrefix();
    const node = createServer({ port: 0, redisUrl: inject('redisUrl'), redisPrefix: prefix }, { log: capture.log });
    const { url } = await node.listen();
    await eventually(async () => expect((await fetch(`${url}/readyz`)).status).toBe(200));
    const redis = new Redis(inject('redisUrl'));
    // A node subscribes only to the workspaces its callers watch.
    const unlisten = node.services.hub.listen('ws', () => undefined);
    try {
      await eventually(async () => expect(await redis.pubsub('SHARDCHANNELS', `${prefix}*`)).toHaveLength(1));
      const [channel] = (await redis.pubsub('SHARDCHANNELS', `${prefix}*`)) as string[];
      await redis.spublish(channel as string, 'not an event');
      await eventually(() => expect(capture.text()).toContain('unreadable event message'));
    } finally {
      unlisten();
      redis.disconnect();
      await node.close();
    }
    for (const line of capture.text().split('\n')) {
      const keys = [...line.matchAll(/[{,]"([^"]+)":/g)].map((m) => m[1]);
      expect(
        keys.filter((k, i) => keys.indexOf(k) !== i),
        line,
      ).toEqual([]);
    }
  });
});
