import type { PlanHubServer, ServerConfigInput } from '@planhub/server';
import { Writable } from 'node:stream';
import { createLogger, createServer } from '@planhub/server';
import type { CallAck } from '@planhub/shared';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { deletePrefix } from '../helpers/stores.ts';
import { uniquePrefix } from '../helpers/servers.ts';
import { openAuth, rawClient, type RawClient } from './support/raw-client.ts';

/** 30 calls per 30-second window: a flood of local calls ends well inside one window, so the count is exact. */
const WINDOW_S = 30;
const LIMITS = { callsPerSecond: 1, rateWindowSeconds: WINDOW_S } as const;
const BUDGET = LIMITS.callsPerSecond * WINDOW_S;

describe('calls per second per agent', () => {
  const servers: PlanHubServer[] = [];
  const clients: RawClient[] = [];
  let prefix: string | undefined;
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await Promise.all(servers.splice(0).map((s) => s.close()));
    if (prefix) await deletePrefix(inject('redisUrl'), prefix);
    prefix = undefined;
  });

  const node = async (config: ServerConfigInput) => {
    const server = createServer({ port: 0, logLevel: 'silent', limits: LIMITS, ...config });
    servers.push(server);
    return (await server.listen()).url;
  };
  const connect = async (url: string, agent: string) => {
    const client = await rawClient(url, openAuth('ws', agent));
    clients.push(client);
    return client;
  };

  /** Sends `total` calls spread over `via`, all at once; counts answers by outcome. */
  const flood = async (via: RawClient[], total: number) => {
    const started = Date.now();
    const acks: CallAck[] = await Promise.all(
      Array.from({ length: total }, (_, i) => (via[i % via.length] as RawClient).call('getPlanStatus', {})),
    );
    const elapsedMs = Date.now() - started;
    const refused = acks.filter((a) => !a.ok && a.error.code === 'RESOURCE_EXHAUSTED');
    // NOT_FOUND (no plan yet) means the call was admitted and ran.
    const admitted = acks.filter((a) => a.ok || a.error.code !== 'RESOURCE_EXHAUSTED');
    return { admitted: admitted.length, refused, elapsedMs };
  };

  /** A fixed window admits BUDGET per window touched: exact when the flood fits one window, bounded otherwise. */
  const expectThrottled = (result: Awaited<ReturnType<typeof flood>>, total: number) => {
    const windows = Math.floor(result.elapsedMs / (WINDOW_S * 1000)) + 1;
    expect(result.admitted).toBeGreaterThanOrEqual(BUDGET);
    expect(result.admitted).toBeLessThanOrEqual(BUDGET * windows);
    expect(result.admitted + result.refused.length).toBe(total);
    for (const ack of result.refused) {
      if (ack.ok) continue;
      expect(ack.error.message).toMatch(/Too many calls: agent flood may make 30 calls per 30 s\. Retry in \d+ ms/);
      const details = ack.error.details as { retry_after_ms: number; limit: number; window_ms: number };
      expect(details.limit).toBe(BUDGET);
      expect(details.window_ms).toBe(WINDOW_S * 1000);
      expect(details.retry_after_ms).toBeGreaterThan(0);
      expect(details.retry_after_ms).toBeLessThanOrEqual(WINDOW_S * 1000);
    }
  };

  it('throttles one agent flooding two nodes at the configured rate in total, while another agent is served', async () => {
    prefix = uniquePrefix();
    const shared = { redisUrl: inject('redisUrl'), redisPrefix: prefix };
    const [a, b] = [await node(shared), await node(shared)];
    const flooders = [await connect(a, 'flood'), await connect(b, 'flood')];
    const calm = [await connect(a, 'calm'), await connect(b, 'calm')];
    const total = BUDGET * 4;
    const [result, calmAnswers] = await Promise.all([
      flood(flooders, total),
      Promise.all(Array.from({ length: 10 }, (_, i) => (calm[i % 2] as RawClient).call('listTools', {}))),
    ]);
    expectThrottled(result, total);
    expect(calmAnswers.every((ack) => ack.ok)).toBe(true);
    // Still refused on either node while the window lasts: the budget is one count shared by both. (On a machine so
    // slow that the flood outlasted the window, a new window may have begun; then there is nothing to check here.)
    if (result.elapsedMs < WINDOW_S * 1000 - 5000)
      for (const client of flooders) {
        const ack = await client.call('listTools', {});
        expect(ack.ok ? 'ok' : ack.error.code).toBe('RESOURCE_EXHAUSTED');
      }
  });

  it('throttles on the memory store too (one node, one count), warning once per window in the log', async () => {
    const lines: Array<{ level: number; msg: string; code?: string }> = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as never);
        done();
      },
    });
    const server = createServer({ port: 0, limits: LIMITS }, { log: createLogger('debug', stream) });
    servers.push(server);
    const { url } = await server.listen();
    const flooders = [await connect(url, 'flood'), await connect(url, 'flood')];
    const calm = await connect(url, 'calm');
    const total = BUDGET * 3;
    const result = await flood(flooders, total);
    expectThrottled(result, total);
    expect((await calm.call('listTools', {})).ok).toBe(true);
    // A flood of refusals is one warning, not one line per refused call at info.
    expect(lines.filter((l) => l.msg.startsWith('call budget exceeded'))).toHaveLength(1);
    expect(lines.filter((l) => l.code === 'RESOURCE_EXHAUSTED' && l.level >= 30)).toHaveLength(0);
  });
});
