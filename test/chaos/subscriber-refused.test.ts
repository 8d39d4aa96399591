import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { createServer, type PlanHubServer } from '@planhub/server';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { startRedisProcess, type RedisProcess } from '../helpers/redis-process.ts';
import { uniquePrefix } from '../helpers/servers.ts';
import { captureLog } from '../security/support/capture-log.ts';

const readyz = async (url: string) => {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: (await res.json()) as { reason?: string; message?: string } };
};

/**
 * Redis serves the node's calls but refuses its subscriber (here at `maxclients`, after the subscriber was cut): the
 * node is rightly unready, since events from other nodes wait, but /readyz and the log said "Redis is unreachable;
 * calls answer UNAVAILABLE" while calls were answered in milliseconds.
 */
describe('the event subscription refused while calls work', () => {
  let redis: RedisProcess | undefined;
  let admin: Redis | undefined;
  let server: PlanHubServer | undefined;
  let client: PlanHubClient | undefined;
  afterEach(async () => {
    client?.close();
    await server?.close();
    admin?.disconnect();
    await redis?.dispose();
  });

  it('says only the events are down, and ready again once the subscriber is back', async () => {
    redis = await startRedisProcess();
    admin = new Redis(redis.url);
    const prefix = uniquePrefix();
    const capture = captureLog();
    server = createServer({ port: 0, redisUrl: redis.url, redisPrefix: prefix }, { log: capture.log });
    const { url } = await server.listen();
    client = await connect({ url, agentId: 'worker', workspace: 'ws' });
    await eventually(async () => expect(await readyz(url)).toMatchObject({ status: 200 }));

    // The connections now open but the subscriber are all Redis takes: cut, it cannot come back.
    const clients = ((await admin.client('LIST')) as string).trim().split('\n');
    const subscriber = clients.find((line) => line.includes(` name=planhub-sub:${prefix} `));
    const id = /\bid=(\d+)/.exec(subscriber ?? '')?.[1];
    expect(id, clients.join('\n')).toBeDefined();
    // Redis keeps the connections it has past a lowered limit, and refuses new ones.
    await admin.config('SET', 'maxclients', String(clients.length - 1));
    expect(await admin.client('KILL', 'ID', id as string)).toBe(1);

    await eventually(async () =>
      expect(await readyz(url)).toMatchObject({
        status: 503,
        body: {
          reason: 'store_events_down',
          message: expect.stringMatching(
            /^Redis answers, but this node's event subscription to it is down: calls work/,
          ) as unknown,
        },
      }),
    );
    // Calls work meanwhile, as the answer says.
    expect((await client.createPlan({ title: 'while events are down', steps: ['a'] })).title).toBe(
      'while events are down',
    );
    await eventually(() =>
      expect(capture.text()).toMatch(/answers, but this node's event subscription to it is down: calls work/),
    );
    expect(capture.text()).not.toMatch(/is unreachable: calls answer UNAVAILABLE/);

    await admin.config('SET', 'maxclients', '10000');
    await eventually(async () => expect(await readyz(url)).toMatchObject({ status: 200 }));
    await eventually(() => expect(capture.text()).toMatch(/The event subscription to Redis at .* is back after \d+ s/));
  });
});
