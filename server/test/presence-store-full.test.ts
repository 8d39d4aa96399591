import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPresenceTransitions } from '../src/presence/presence-transitions.ts';
import { createMemoryStore, type MemoryStoreOptions } from '../src/store/memory-store.ts';

interface Line {
  level: number;
  msg: string;
  err?: unknown;
  reason?: string;
  details?: { kind?: string };
  unlogged_since?: number;
}

const transitionsOn = (options: Partial<MemoryStoreOptions>) => {
  const lines: Line[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Line) });
  const store = createMemoryStore({ eventRetention: 100, ...options });
  const transitions = createPresenceTransitions(store, () => new Date(0).toISOString(), log);
  return { store, transitions, lines };
};

/**
 * A presence change the store refuses for room is given up with a warning: which bound is full, in an operator's
 * words, and no stack (an expected refusal, made at every connect and disconnect while it lasts), at most once a
 * minute per kind.
 */
describe('a presence change the store has no room for', () => {
  afterEach(() => vi.useRealTimers());

  it("names the node's in-memory bound when the whole store is full", async () => {
    const { store, transitions, lines } = transitionsOn({ storeBytes: 1 });
    await transitions.online('ws', 'alice');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      msg: "presence change not logged: this node's in-memory store is full (PLANHUB_MEMORY_STORE_BYTES)",
      details: { kind: 'memoryStoreBytes' },
    });
    expect(lines[0]?.reason).toContain('PLANHUB_MEMORY_STORE_BYTES');
    expect(lines[0]).not.toHaveProperty('err');
    expect(await store.readEvents('ws', { count: 10 })).toEqual([]);
  });

  it('names the workspace when its own quota is what is full', async () => {
    const { store, transitions, lines } = transitionsOn({ workspaceBytes: 1 });
    await transitions.online('ws', 'alice');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, msg: 'presence change not logged: the workspace is full' });
    expect(lines[0]?.details?.kind).not.toBe('memoryStoreBytes');
    expect(lines[0]).not.toHaveProperty('err');
    expect(await store.readEvents('ws', { count: 10 })).toEqual([]);
  });

  it('is logged once a minute while the store stays full, with the count of the rest', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const { transitions, lines } = transitionsOn({ storeBytes: 1 });
    // 16,000 connect-only clients used to log 32,000 lines of ~870 bytes.
    for (let i = 0; i < 200; i++) {
      await transitions.online(`ws-${i}`, `a${i}`);
      await transitions.offline(`ws-${i}`, `a${i}`, new Date(0).toISOString(), 'disconnected', () =>
        Promise.resolve(false),
      );
    }
    expect(lines).toHaveLength(1);
    vi.advanceTimersByTime(60_000);
    await transitions.online('ws-last', 'last');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ level: 40, details: { kind: 'memoryStoreBytes' }, unlogged_since: 399 });
  });
});
