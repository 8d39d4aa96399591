import type { Store } from '@planhub/server';
import { describe, expect, vi } from 'vitest';
import { STORE_FIXTURE_KINDS } from '../helpers/stores.ts';
import { storeTest, WS } from './conformance-support.ts';

const KEEP = 3;
const DAY_MS = 24 * 60 * 60 * 1000;

const remember = (requestId: string) => ({
  reads: [],
  writes: [],
  events: [],
  request: { agent_id: 'agent-1', request_id: requestId, answer: { n: requestId }, ttl_ms: 60_000, keep: KEEP },
});

/** Runs `work` with this process's clock a day behind (only Date.now, so timers and deadlines keep running). */
const aDayBehind = async <T>(work: () => Promise<T>): Promise<T> => {
  const real = Date.now.bind(Date);
  const spy = vi.spyOn(Date, 'now').mockImplementation(() => real() - DAY_MS);
  try {
    return await work();
  } finally {
    spy.mockRestore();
  }
};

/**
 * The per-agent bound on remembered answers forgets the oldest, by the store's clock, never by the committing
 * node's: a node whose clock is behind must not forget the answer it has just written, or a retry applies twice.
 */
describe.each(STORE_FIXTURE_KINDS)('the request log on the %s store, written by a node a day behind', (kind) => {
  const it = storeTest(kind);

  it('keeps the newest answer and forgets the oldest', async ({ fixture }) => {
    const node = fixture.open();
    // Redis: another node on the same data; memory and file are one node, their clock the one skewed.
    const behind: Store = kind === 'redis' || kind === 'redis-cluster' ? fixture.open() : node;
    for (let i = 0; i < KEEP; i++) expect(await node.commit(WS, remember(`r${i}`))).toMatchObject({ ok: true });
    expect(await aDayBehind(() => behind.commit(WS, remember('late')))).toMatchObject({ ok: true });

    expect(await node.requestAnswer(WS, 'agent-1', 'late')).toMatchObject({ answer: { n: 'late' } });
    // A retry of the request just answered is refused, on either node.
    expect(await aDayBehind(() => behind.commit(WS, remember('late')))).toEqual({ ok: false, reason: 'conflict' });
    expect(await node.commit(WS, remember('late'))).toEqual({ ok: false, reason: 'conflict' });
    const kept = [];
    for (let i = 0; i < KEEP; i++) if (await node.requestAnswer(WS, 'agent-1', `r${i}`)) kept.push(`r${i}`);
    expect(kept).toEqual(['r1', 'r2']);
  });
});
