import type { EventType, NewEvent } from '@planhub/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServer } from '../src/create-server.ts';
import { EventHub } from '../src/events/event-hub.ts';
import { createMemoryStore } from '../src/store/memory-store.ts';
import { createDispatch } from '../src/tools/dispatch.ts';
import { HANDLERS } from '../src/tools/handlers.ts';

const newEvent = (type: EventType): NewEvent => ({
  event_type: type,
  timestamp: new Date(0).toISOString(),
  workspace: 'ws',
  source_agent: 'a',
  source_plan_id: null,
  source_plan_title: null,
  source_step_id: null,
  source_step_description: null,
  source_step_sequence: null,
  payload: {},
});

/** Lets Node run its unhandled-rejection check (it runs after the microtask queue drains). */
const turns = async (n = 3) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('waiting for an event', () => {
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', record);
  });
  afterEach(() => {
    process.off('unhandledRejection', record);
  });

  it('does not leave an unhandled rejection when the connection closes before anyone awaits the wait', async () => {
    const store = createMemoryStore({ eventRetention: 100 });
    const hub = new EventHub(store, () => undefined);
    const connection = new AbortController();
    const wait = hub.waitFor('ws', () => true, { signal: connection.signal });
    connection.abort();
    await turns();
    expect(unhandled).toEqual([]);
    // Whoever does await it still learns why it ended.
    await expect(wait.promise).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    hub.close();
  });

  it('keeps delivering to a later listener of the workspace when an earlier wait is cancelled after it resolved', async () => {
    const store = createMemoryStore({ eventRetention: 100 });
    const hub = new EventHub(store, () => undefined);
    const wait = hub.waitFor('ws', () => true);
    await store.commit('ws', { reads: [], writes: [], events: [newEvent('plan_created')] });
    expect(await wait.promise).toMatchObject({ event_type: 'plan_created' });
    // A connection starts listening between the wait's resolution and its cleanup (getTaskEvents' second read).
    const seen: string[] = [];
    hub.listen('ws', (e) => seen.push(e.event_type));
    wait.cancel();
    await store.commit('ws', { reads: [], writes: [], events: [newEvent('plan_started')] });
    expect(seen).toEqual(['plan_started']);
    hub.close();
  });

  it('answers a long-poll whose connection is already gone without an unhandled rejection', async () => {
    const server = createServer({ port: 0, logLevel: 'silent', approvalPolicy: 'auto' });
    try {
      const dispatch = createDispatch(server.services, HANDLERS);
      const live = new AbortController();
      const caller = { workspace: 'ws', agent_id: 'a', role: 'agent' as const };
      const created = await dispatch(
        { caller, signal: live.signal },
        { tool: 'createPlan', args: { title: 'T', steps: ['s'] } },
      );
      expect(created.ok).toBe(true);

      const gone = new AbortController();
      gone.abort();
      const answer = await dispatch(
        { caller, signal: gone.signal },
        { tool: 'getTaskEvents', args: { after_event: '0-0', timeout: 5 } },
      );
      await turns();
      expect(answer).toMatchObject({ ok: true, result: { count: 1 } });
      expect(unhandled).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe("a workspace's fan-out", () => {
  it('leaves the node free for other work between chunks of a large fan-out, each listener in log order', async () => {
    const store = createMemoryStore({ eventRetention: 100 });
    const hub = new EventHub(store, () => undefined);
    const log: string[] = [];
    // Another connection's call becomes ready as the first listener runs.
    hub.listen('ws', () => void setImmediate(() => log.push('other')));
    for (let i = 0; i < 300; i++) hub.listen('ws', (e) => log.push(`${i}:${e.event_type}`));
    await store.commit('ws', { reads: [], writes: [], events: [newEvent('plan_created'), newEvent('plan_started')] });
    await turns(100);
    const delivered = log.filter((entry) => entry !== 'other');
    const inOrder = ['plan_created', 'plan_started'].flatMap((type) =>
      Array.from({ length: 300 }, (_, i) => `${i}:${type}`),
    );
    expect(delivered).toEqual(inOrder);
    // Served before the first event had reached every listener, not after the whole fan-out.
    expect(log.indexOf('other')).toBeLessThan(log.indexOf('299:plan_created'));
    hub.close();
  });
});
