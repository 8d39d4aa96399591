import { describe, expect, it } from 'vitest';
import { EventLog } from '../src/store/memory-event-log.ts';
import { createNodeBytes } from '../src/store/memory-node-bytes.ts';
import { createRememberedAnswers } from '../src/store/memory-requests.ts';
import { createMemoryStore } from '../src/store/memory-store.ts';
import { emptyWorkspace } from '../src/store/memory-workspace.ts';
import { createRequestIndex } from '../src/store/request-index.ts';
import type { Commit } from '../src/store/store.ts';

const TTL_MS = 600_000;
const answer = { text: 'x'.repeat(1_000) };

/** One mutating call of a short-lived agent, with the request_id the SDK puts on each. */
const call = (agent: string, requestId = 'r1', ttl_ms = TTL_MS): Commit => ({
  reads: [],
  writes: [],
  events: [],
  request: { agent_id: agent, request_id: requestId, answer, ttl_ms, keep: 10_000 },
});

/** Agents that each make one call and leave, until the store's bound refuses one: how many fit. */
const fill = async (store: ReturnType<typeof createMemoryStore>, prefix: string) => {
  for (let i = 0; ; i++) {
    const out = await store.commit('ws', call(`${prefix}-${i}`)).catch((err: unknown) => err);
    if ((out as { ok?: boolean }).ok !== true) return { fitted: i, refusal: out };
  }
};

/**
 * The memory store's remembered answers used to leave only when their agent committed again: subagents that call
 * once and leave left theirs for good, counted against the bound. A 4 MiB store refused every write after 4,084
 * agents' 1 KB answers, and still did a day later, when all had expired.
 */
describe('remembered answers past their TTL in the memory store', () => {
  it('leave without their agent calling again, and free their bytes for any write', async () => {
    let now = 1_000_000;
    const store = createMemoryStore({ eventRetention: 100, storeBytes: 200_000, now: () => now });
    const first = await fill(store, 'gone');
    expect(first.fitted).toBeGreaterThan(150);
    expect(first.refusal).toMatchObject({ details: { kind: 'memoryStoreBytes' } });

    // Within their TTL they stay: the same call again is the one already answered.
    now += TTL_MS - 1;
    expect(await store.commit('ws', call('gone-0'))).toEqual({ ok: false, reason: 'conflict' });
    await expect(
      store.commit('other', { reads: [], writes: [{ key: 'd', value: 1 }], events: [] }),
    ).rejects.toMatchObject({
      details: { kind: 'memoryStoreBytes' },
    });

    now += 2;
    expect(await store.commit('other', { reads: [], writes: [{ key: 'd', value: 1 }], events: [] })).toMatchObject({
      ok: true,
    });
    expect(await store.requestAnswer('ws', 'gone-0', 'r1')).toBeUndefined();
    // Every byte came back: as many new agents fit again, less the workspace and document written meanwhile.
    const second = await fill(store, 'new');
    expect(second.fitted).toBeGreaterThanOrEqual(first.fitted - 3);
  });

  it('leave every structure that held them, in every workspace, and only once expired', () => {
    let now = 0;
    const node = createNodeBytes({});
    const answers = createRememberedAnswers(node, () => now);
    const workspaces = [0, 1].map(() => emptyWorkspace(new EventLog(), createRequestIndex()));
    for (const [n, w] of workspaces.entries())
      for (let i = 0; i < 100; i++) {
        const before = w.requestBytes;
        answers.remember(w, `a${i}\u0000r`, `answer ${n}/${i}`, { agent_id: `a${i}`, ttl_ms: 1_000 + i });
        node.changed(w.requestBytes - before);
        now += 1;
      }
    // One agent's answers past its `keep` leave at once, whatever their TTL.
    const w0 = workspaces[0]!;
    const before = w0.requestBytes;
    for (let i = 0; i < 3; i++)
      answers.remember(w0, `kept\u0000r${i}`, 'k', { agent_id: 'kept', ttl_ms: 100_000, keep: 1 });
    node.changed(w0.requestBytes - before);
    expect(answers.size()).toBe(201);
    expect(w0.requestIndex.agents()).toBe(101);

    answers.sweep();
    expect(answers.size()).toBe(201);
    now = 1_150;
    answers.sweep();
    // Remembered at 0..99 (and 100..199) with TTLs of 1,000..1,099: those of the first workspace up to a75 expired.
    expect(w0.requests.size).toBe(100 - 76 + 1);
    expect(workspaces[1]!.requests.size).toBe(100);

    // An expired answer asked for leaves there, and from the order too.
    now = 1_200;
    expect(answers.live(workspaces[1]!, 'a0\u0000r')).toBeUndefined();
    expect(answers.size()).toBe(124);

    now = 100_000;
    answers.sweep();
    expect(answers.size()).toBe(1);
    expect(w0.requests.size).toBe(1);
    expect(w0.requestIndex.agents()).toBe(1);
    for (const w of workspaces.slice(1)) {
      expect(w.requests.size).toBe(0);
      expect(w.requestIndex.agents()).toBe(0);
      expect(w.requestBytes).toBe(0);
    }
    now = 200_000;
    answers.sweep();
    expect(w0.requestIndex.agents()).toBe(0);
    expect(w0.requestBytes).toBe(0);
    expect(node.used()).toBe(0);
  });
});
