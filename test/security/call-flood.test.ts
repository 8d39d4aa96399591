import type { CallAck } from '@planhub/shared';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { CALLS_PER_CONNECTION } from '../../server/src/transport/calls-in-flight.ts';
import { eventually } from '../helpers/eventually.ts';
import { startRedisProcess, type RedisProcess } from '../helpers/redis-process.ts';
import { openAuth, rawClient, type RawClient } from './support/raw-client.ts';
import { spawnNode, type SpawnedProcess } from './support/spawn-node.ts';

/** An agent's budget: 2 calls/s over a 60-s window (120 points), so the whole flood falls in one window. */
const BUDGET = { PLANHUB_LIMIT_CALLS_PER_SECOND: '2', PLANHUB_LIMIT_RATE_WINDOW_SECONDS: '60' };
const FLOOD_CALLS = 3000;
/** Calls the flood keeps in flight: under the connection's bound, so every refusal here is the budget's. */
const FLOOD_BATCH = 50;
const WARNING = 'call budget exceeded; further refusals in this window are logged at debug';

/**
 * The points the shared count on Redis holds for `agent` in this window. Every count that reached Redis added the
 * points it asked for, refused or not, so this is at least the number of calls that were counted there.
 */
const countedOnRedis = async (redis: Redis, agent: string): Promise<number> => {
  const key = (await redis.keys('*:rl:*')).find((k) => k.endsWith(`\u0000${agent}`));
  expect(key).toBeDefined();
  return Number(await redis.get(key as string));
};

const codeOf = (ack: CallAck) => (ack.ok ? 'OK' : ack.error.code);

/**
 * One agent on one socket flooding small calls past its budget, on a node whose store is a real Redis. Refusals
 * must cost the node (and everyone sharing its Redis connection) nearly nothing: the budget's refusal is remembered
 * until its window ends, and a connection's calls in flight are bounded (until round 30 each refused call went to
 * Redis, and /readyz timed out for 26 s).
 */
describe('a call flood on one socket', () => {
  const redises: RedisProcess[] = [];
  const nodes: SpawnedProcess[] = [];
  const clients: RawClient[] = [];
  const admins: Redis[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const redis = await startRedisProcess();
    redises.push(redis);
    const node = await spawnNode({ REDIS_URL: redis.url, ...BUDGET, ...env });
    nodes.push(node);
    const admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    admins.push(admin);
    return { redis, node, admin };
  };
  const connect = async (url: string, workspace: string, agent: string) => {
    const client = await rawClient(url, openAuth(workspace, agent));
    clients.push(client);
    return client;
  };
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    for (const a of admins.splice(0)) a.disconnect();
    for (const n of nodes.splice(0)) await n.stop();
    for (const r of redises.splice(0)) {
      r.signal('SIGCONT');
      await r.dispose();
    }
  });

  it('refuses an agent past its budget without asking Redis again, warns once, and stays ready', async () => {
    const { node, admin } = await start();
    const hog = await connect(node.url, 'flood', 'hog');
    const bystander = await connect(node.url, 'quiet', 'bystander');

    const codes = new Map<string, number>();
    const readyz: number[] = [];
    let flooding = true;
    const probe = async () => {
      while (flooding) {
        readyz.push((await fetch(`${node.url}/readyz`, { signal: AbortSignal.timeout(10_000) })).status);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const probing = probe();
    for (let sent = 0; sent < FLOOD_CALLS; sent += FLOOD_BATCH) {
      const acks = await Promise.all(Array.from({ length: FLOOD_BATCH }, () => hog.call('getPlanStatus', {})));
      for (const ack of acks) codes.set(codeOf(ack), (codes.get(codeOf(ack)) ?? 0) + 1);
    }
    flooding = false;
    await probing;

    // The budget refused nearly all of it (what it admitted answers NOT_FOUND: the hog has no plan).
    expect(codes.get('RESOURCE_EXHAUSTED')).toBeGreaterThanOrEqual(FLOOD_CALLS - 120);
    // Had each refused call been counted on Redis, the count would hold at least FLOOD_CALLS: it holds about the
    // budget, plus the calls in flight when the first refusal came back.
    expect(await countedOnRedis(admin, 'hog')).toBeLessThan(FLOOD_CALLS / 10);
    expect(readyz.length).toBeGreaterThan(0);
    expect(readyz.every((status) => status === 200)).toBe(true);
    expect(await bystander.call('listTools', {})).toMatchObject({ ok: true });
    // One window, one node, one agent: one warning, however many refusals were in flight together.
    const warnings = node
      .output()
      .split('\n')
      .filter((line) => line.includes(WARNING));
    expect(warnings).toHaveLength(1);
  }, 120_000);

  it('answers the calls past a connection’s bound at once, and serves the ones before it', async () => {
    const { redis, node } = await start({ PLANHUB_STORE_DEADLINE_MS: '30000' });
    const hog = await connect(node.url, 'flood', 'burst');
    const total = CALLS_PER_CONNECTION + 100;
    // Redis hung: every admitted call waits on its count, so exactly the first CALLS_PER_CONNECTION are in flight.
    redis.signal('SIGSTOP');
    const answers: (CallAck | undefined)[] = Array.from({ length: total }, () => undefined);
    const all = Promise.all(
      Array.from({ length: total }, (_, i) =>
        hog.call('getPlanStatus', {}).then(
          (ack) => void (answers[i] = ack),
          () => undefined,
        ),
      ),
    );
    const inFlightRefusal = (ack: CallAck | undefined) =>
      ack !== undefined && !ack.ok && (ack.error.details as { kind?: string } | undefined)?.kind === 'callsInFlight';
    await eventually(() => expect(answers.filter(inFlightRefusal)).toHaveLength(100));
    // Refused without waiting on the store: the calls within the bound are all still waiting for it.
    expect(answers.slice(0, CALLS_PER_CONNECTION).every((ack) => ack === undefined)).toBe(true);
    const refusal = answers[CALLS_PER_CONNECTION];
    expect(refusal).toMatchObject({
      ok: false,
      error: {
        code: 'RESOURCE_EXHAUSTED',
        details: { kind: 'callsInFlight', in_flight: CALLS_PER_CONNECTION, limit: CALLS_PER_CONNECTION },
      },
    });
    expect((refusal as { error: { message: string } }).error.message).toMatch(
      new RegExp(`${CALLS_PER_CONNECTION} are not answered yet.*Wait for some of their answers`),
    );

    redis.signal('SIGCONT');
    await all;
    // The calls within the bound are served (NOT_FOUND: the agent has no plan), none refused for being in flight.
    const served = answers.slice(0, CALLS_PER_CONNECTION).map((ack) => codeOf(ack as CallAck));
    expect(new Set(served)).toEqual(new Set(['NOT_FOUND']));
    expect(answers.slice(CALLS_PER_CONNECTION).every(inFlightRefusal)).toBe(true);
    // Answered, they free their slots: the connection takes calls again.
    expect(await hog.call('getPlanStatus', {})).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  }, 120_000);
});
