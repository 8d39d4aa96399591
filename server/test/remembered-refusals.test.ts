import pino from 'pino';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import { createCallLimiter } from '../src/limits/call-limiter.ts';
import type { LimitBackend } from '../src/store/limits/limit-backend.ts';
import { createMemoryLimits } from '../src/store/limits/memory-limits.ts';

const agent = { workspace: 'w', agent_id: 'a', role: 'agent' as const };
const WARNING = 'call budget exceeded; further refusals in this window are logged at debug';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Nodes sharing one count, as nodes share one Redis key. `sent` counts the round trips; `lateMs` delays the answer
 * of the counts it names (by their order), as a node whose replies queue behind a flood reads them late.
 */
const sharedCount = (lateMs: (count: number) => number = () => 0) => {
  let shared: RateLimiterMemory | undefined;
  let sent = 0;
  // finally() waits for the delay and then settles as the count did: admitted, or refused with its RateLimiterRes.
  const answer = <T>(count: number, result: Promise<T>): Promise<T> =>
    lateMs(count) === 0 ? result : result.finally(() => sleep(lateMs(count)));
  const backend: LimitBackend = {
    ...createMemoryLimits(),
    rateLimiter: (options) => {
      const limiter = (shared ??= new RateLimiterMemory(options));
      return Object.assign(Object.create(limiter) as RateLimiterMemory, {
        consume: (key: string, taken: number) => answer(sent++, limiter.consume(key, taken)),
      });
    },
  };
  return { backend, sent: () => sent };
};

const outcome = (settled: Promise<void>) =>
  settled.then(
    () => 'admitted',
    (err: { code?: string; details?: { retry_after_ms?: number } }) => err,
  );

describe('call limiter: refusals remembered until their window ends', () => {
  it('refuses an agent past its budget with no further count on that node, until the window ends', async () => {
    const { backend, sent } = sharedCount();
    const limits = { callsPerSecond: 5, rateWindowSeconds: 1 };
    const [nodeA, nodeB] = [createCallLimiter({ limits, backend }), createCallLimiter({ limits, backend })];
    for (let i = 0; i < 5; i++) expect(await outcome(nodeA.admit(agent).settled)).toBe('admitted');
    const first = await outcome(nodeA.admit(agent).settled);
    expect(first).toMatchObject({ code: 'RESOURCE_EXHAUSTED' });
    const counted = sent();
    // Refused with no round trip, by admit and by consume (work charged after a call) alike.
    for (let i = 0; i < 100; i++) {
      const refused = await outcome(nodeA.admit(agent).settled);
      expect(refused).toMatchObject({ code: 'RESOURCE_EXHAUSTED', details: { limit: 5, window_ms: 1000 } });
      expect((refused as { details: { retry_after_ms: number } }).details.retry_after_ms).toBeLessThanOrEqual(1000);
    }
    await expect(nodeA.consume(agent)).rejects.toMatchObject({ code: 'RESOURCE_EXHAUSTED' });
    expect(sent()).toBe(counted);
    // Another node learns of the refusal from its own count (the shared count is the authority), then remembers it.
    expect(await outcome(nodeB.admit(agent).settled)).toMatchObject({ code: 'RESOURCE_EXHAUSTED' });
    expect(await outcome(nodeB.admit(agent).settled)).toMatchObject({ code: 'RESOURCE_EXHAUSTED' });
    expect(sent()).toBe(counted + 1);
    // Another agent is not refused.
    expect(await outcome(nodeA.admit({ ...agent, agent_id: 'b' }).settled)).toBe('admitted');
    // Once the window has ended, the agent's calls are counted and admitted again.
    await sleep(((first as { details: { retry_after_ms: number } }).details.retry_after_ms ?? 1000) + 50);
    expect(await outcome(nodeA.admit(agent).settled)).toBe('admitted');
    expect(await outcome(nodeB.admit(agent).settled)).toBe('admitted');
  });

  it('warns once per window, however late the answers of refusals in flight together are read', async () => {
    const lines: { msg: string }[] = [];
    const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as never) });
    // A 4-s window of 4 calls; the refusals of the 6th and 7th counts are read 2.5 s late (a queue of replies).
    const { backend } = sharedCount((count) => (count >= 5 && count < 7 ? 2500 : 0));
    const limiter = createCallLimiter({ limits: { callsPerSecond: 1, rateWindowSeconds: 4 }, backend, log });
    for (let i = 0; i < 4; i++) await limiter.consume(agent);
    const inFlight = Array.from({ length: 3 }, () => outcome(limiter.admit(agent).settled));
    for (const refused of await Promise.all(inFlight)) expect(refused).toMatchObject({ code: 'RESOURCE_EXHAUSTED' });
    expect(lines.filter((line) => line.msg === WARNING)).toHaveLength(1);
  });

  it('neither warns again nor remembers a refusal read after its window ended', async () => {
    const lines: { msg: string }[] = [];
    const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as never) });
    // A 1-s window of 1 call; two of three refusals in flight together are read 2.5 s late, two windows on.
    const { backend } = sharedCount((count) => (count >= 2 && count < 4 ? 2500 : 0));
    const limiter = createCallLimiter({ limits: { callsPerSecond: 1, rateWindowSeconds: 1 }, backend, log });
    await limiter.consume(agent);
    const inFlight = Array.from({ length: 3 }, () => outcome(limiter.admit(agent).settled));
    for (const refused of await Promise.all(inFlight)) expect(refused).toMatchObject({ code: 'RESOURCE_EXHAUSTED' });
    expect(lines.filter((line) => line.msg === WARNING)).toHaveLength(1);
    // Nothing stale refuses the agent's next call: its window is a new one.
    expect(await outcome(limiter.admit(agent).settled)).toBe('admitted');
  });
});
