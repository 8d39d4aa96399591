import type { EventEnvelope, NewEvent } from '@planhub/shared';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryStore } from '../src/store/memory-store.ts';

const newEvent = (n: number): NewEvent => ({
  event_type: 'step_completed',
  timestamp: new Date(n).toISOString(),
  workspace: 'ws',
  source_agent: 'a',
  source_plan_id: null,
  source_plan_title: null,
  source_step_id: `step_${n}`,
  source_step_description: null,
  source_step_sequence: n,
  payload: {},
});

const commitTwo = (store: ReturnType<typeof createMemoryStore>) =>
  store.commit('ws', { reads: [], writes: [{ key: 'doc', value: 1 }], events: [newEvent(1), newEvent(2)] });

describe('the memory store with a listener that throws', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('keeps the applied commit ok, still feeds the other listeners, and reports each failure', async () => {
    const failures: Array<{ err: unknown; event: EventEnvelope }> = [];
    const store = createMemoryStore({
      eventRetention: 100,
      onListenerError: (err, event) => failures.push({ err, event }),
    });
    const seen: EventEnvelope[] = [];
    store.watch('ws', () => {
      throw new Error('listener bug');
    });
    store.watch('ws', (event) => seen.push(event));

    const outcome = await commitTwo(store);

    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(seen).toEqual(outcome.events);
    expect(failures.map((f) => [(f.err as Error).message, f.event])).toEqual(
      outcome.events.map((event) => ['listener bug', event]),
    );
    expect(await store.load('ws', ['doc'])).toEqual([{ value: 1, version: 1 }]);
    expect(await store.readEvents('ws', { count: 10 })).toEqual(outcome.events);
  });

  it('rethrows the error outside the commit when nobody asked to be told', async () => {
    const queued: Array<() => void> = [];
    vi.stubGlobal('queueMicrotask', (task: () => void) => queued.push(task));
    const store = createMemoryStore({ eventRetention: 100 });
    store.watch('ws', () => {
      throw new Error('listener bug');
    });

    const outcome = commitTwo(store);
    vi.unstubAllGlobals();

    expect((await outcome).ok).toBe(true);
    expect(queued).toHaveLength(2);
    for (const task of queued) expect(task).toThrow('listener bug');
  });
});
