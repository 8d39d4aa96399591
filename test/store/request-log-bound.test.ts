import { Redis } from 'ioredis';
import { describe, expect, inject } from 'vitest';
import type { StoreFixtureKind } from '../helpers/stores.ts';
import { rounds } from '../helpers/stress.ts';
import { storeTest, WS } from './conformance-support.ts';

const KEEP = 5;
const FLOOD = rounds(40);

const remember = (requestId: string, agent = 'flooder') => ({
  reads: [],
  writes: [],
  events: [],
  request: { agent_id: agent, request_id: requestId, answer: { n: requestId }, ttl_ms: 60_000, keep: KEEP },
});

describe.each<StoreFixtureKind>(['memory', 'redis', 'file'])('the request log on the %s store', (kind) => {
  const it = storeTest(kind);

  it('keeps at most `keep` answers per agent within the TTL, forgetting the oldest first', async ({
    store,
    fixture,
  }) => {
    for (let i = 0; i < FLOOD; i++) expect(await store.commit(WS, remember(`r${i}`))).toMatchObject({ ok: true });
    await store.commit(WS, remember('other-1', 'polite'));

    const kept: string[] = [];
    for (let i = 0; i < FLOOD; i++) if (await store.requestAnswer(WS, 'flooder', `r${i}`)) kept.push(`r${i}`);
    expect(kept).toEqual(Array.from({ length: KEEP }, (_, i) => `r${FLOOD - KEEP + i}`));
    // Another agent's answers are its own to bound.
    expect(await store.requestAnswer(WS, 'polite', 'other-1')).toMatchObject({ answer: { n: 'other-1' } });
    // A kept answer still refuses to run its request again.
    expect(await store.commit(WS, remember(`r${FLOOD - 1}`))).toEqual({ ok: false, reason: 'conflict' });

    if (kind === 'redis') {
      const admin = new Redis(inject('redisUrl'));
      try {
        // Nothing left behind: the forgotten answers' keys are gone, and the index holds only the kept ones.
        expect(await admin.keys(`${fixture.prefix}:{${WS}}:req:flooder:*`)).toHaveLength(KEEP);
        expect(await admin.zcard(`${fixture.prefix}:{${WS}}:reqs:flooder`)).toBe(KEEP);
        expect(await admin.pttl(`${fixture.prefix}:{${WS}}:reqs:flooder`)).toBeGreaterThan(0);
      } finally {
        admin.disconnect();
      }
    }
  });
});
