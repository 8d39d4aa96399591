import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { createServer, type PlanHubServer } from '@planhub/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { metric } from '../helpers/metrics.ts';
import { bigTodos, stalledSubscriber } from '../helpers/stalled-subscriber.ts';
import { rounds } from '../helpers/stress.ts';
import { sdkSubscriber } from './support/sdk-subscriber-process.ts';

/** The smallest limit allowed (two of the largest events): reached quickly. */
const LIMIT = 1024 * 1024;
const STALLED = 3;
/** Each write carries a todo list of ~200 KB, pushed to every subscriber: far past the kernel's socket buffers. */
const WRITES = rounds(80);

/** Every event id of the given type in the workspace's log, oldest first, read in small pages. */
const logIds = async (client: PlanHubClient, type: 'todos_updated') => {
  const ids: string[] = [];
  for (let after = '0-0'; ;) {
    const page = await client.getTaskEvents({ event_types: [type], after_event: after, limit: 10 });
    ids.push(...page.events.map((e) => e.event_id));
    if (page.count === 0 || page.last_event_id === null) return ids;
    after = page.last_event_id;
  }
};

describe('stalled consumers', () => {
  let server: PlanHubServer;
  let url: string;
  let writer: PlanHubClient;

  beforeAll(async () => {
    server = createServer({
      port: 0,
      logLevel: 'silent',
      // Long enough that every stalled client is still there to be told why when the test lets it read again.
      slowConsumerGraceMs: 120_000,
      limits: { outboundBytes: LIMIT, callsPerSecond: 100_000, callsPerAddressPerSecond: 1_000_000 },
    });
    ({ url } = await server.listen());
    writer = await connect({ url, workspace: 'ws', agentId: 'writer' });
  });

  afterAll(async () => {
    writer?.close();
    await server?.close();
  });

  it('cut a connection that stops reading once its queue passes the limit; the heap never holds more', async () => {
    const stalled = await Promise.all(
      Array.from({ length: STALLED }, (_, i) => stalledSubscriber(url, `stalled-${i}`)),
    );
    const reader = await connect({ url, workspace: 'ws', agentId: 'reader' });
    let delivered = 0;
    reader.on('event', (e) => void (e.event_type === 'todos_updated' && (delivered += 1)));
    await reader.subscribeToTasks({ event_types: ['todos_updated'] });

    let largest = 0;
    for (let round = 0; round < WRITES; round++) {
      const todos = bigTodos(round);
      largest = Math.max(largest, JSON.stringify(todos).length);
      await writer.call('todo_write', { todos });
    }

    // Every stalled connection was cut, by the limit (the heartbeat would take a minute).
    await eventually(async () => expect(await metric(url, 'planhub_slow_consumers_cut_total')).toBe(STALLED));
    const peak = await metric(url, 'planhub_outbound_peak_bytes');
    expect(peak).toBeGreaterThan(0);
    // The check runs after each push: at most one event over the limit (plus its envelope) was ever queued.
    expect(peak).toBeLessThanOrEqual(LIMIT + largest + 4096);

    // A stalled client that reads again learns why it was cut.
    for (const client of stalled) client.resume();
    await eventually(() =>
      expect(stalled.map((c) => c.reasons[0])).toEqual(
        Array(STALLED).fill(expect.objectContaining({ code: 'RESOURCE_EXHAUSTED', reason: 'slow_consumer' })),
      ),
    );
    for (const client of stalled) client.socket.close();

    // The reader that kept reading was never cut and got every event.
    await eventually(() => expect(delivered).toBe(WRITES));
    expect(reader.state).toBe('connected');
    reader.close();
  });

  it('an SDK client cut as a slow consumer is told why, reconnects and resumes with no event lost or repeated', async () => {
    const subscriber = sdkSubscriber({ url, workspace: 'sdk', agent: 'slow', types: 'todos_updated' });
    const producer = await connect({ url, workspace: 'sdk', agentId: 'producer' });
    try {
      await eventually(() => expect(subscriber.reports).toContainEqual({ kind: 'subscribed' }));
      const cutsBefore = await metric(url, 'planhub_slow_consumers_cut_total');

      // The whole client stops: its socket, its timers, its application.
      subscriber.signal('SIGSTOP');
      let written = 0;
      while ((await metric(url, 'planhub_slow_consumers_cut_total')) === cutsBefore) {
        // ~100 MB: far past any socket buffer, so the node must have cut the client by then.
        expect(written, 'writes before the node cut the stopped client').toBeLessThan(500);
        await producer.call('todo_write', { todos: bigTodos(written++) });
      }
      // Committed after the cut: these reach the client only through its resume.
      for (let i = 0; i < 3; i++) await producer.call('todo_write', { todos: bigTodos(written++) });
      subscriber.signal('SIGCONT');

      const expected = await logIds(producer, 'todos_updated');
      expect(expected).toHaveLength(written);
      await eventually(() => expect(subscriber.events().length).toBeGreaterThanOrEqual(expected.length));
      // Each event once, in log order: what the cut dropped was replayed from the cursor, nothing twice.
      expect(subscriber.events()).toEqual(expected);
      // Cut once: the resume's replay waited for the client to read instead of passing the limit in one burst.
      expect(await metric(url, 'planhub_slow_consumers_cut_total')).toBe(cutsBefore + 1);

      // The application was told why, on the state it saw and as an error event, and the client is back.
      const toldFields = {
        code: 'RESOURCE_EXHAUSTED',
        message: expect.stringContaining('did not read its events') as unknown,
        details: expect.objectContaining({ reason: 'slow_consumer', limit_bytes: LIMIT }) as unknown,
      };
      const told: unknown = expect.objectContaining(toldFields);
      const states = subscriber.states();
      expect(states.filter((r) => r.state === 'disconnected')).toEqual([
        expect.objectContaining({ info: expect.objectContaining({ error: told }) as unknown }) as unknown,
      ]);
      expect(states.at(-1)).toMatchObject({ state: 'connected' });
      expect(subscriber.reports.filter((r) => r.kind === 'error')).toEqual([
        expect.objectContaining({ kind: 'error', ...toldFields }) as unknown,
      ]);
    } finally {
      subscriber.stop();
      producer.close();
    }
  });
});
