import type { TaskEvent } from '@planhub/client-sdk';
import type { NewEvent } from '@planhub/shared';
import { connect } from '@planhub/client-sdk';
import { createMemoryStore, createServer, type Store } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';
import { bigEvent } from '../helpers/big-event.ts';
import { eventually } from '../helpers/eventually.ts';

/**
 * A real store that commits one event right after it answers the next head read (readEvents with count 1 and no
 * cursor): an event just after the position a "$" read takes, so one a live-only subscription must receive.
 */
const committingAfterHeadRead = (store: Store, event: NewEvent) => {
  let armed = false;
  const wrapped: Store = {
    ...store,
    limits: store.limits,
    async readEvents(ws, read) {
      const answer = await store.readEvents(ws, read);
      if (armed && read.count === 1 && read.after === undefined && read.before === undefined) {
        armed = false;
        await store.commit(ws, { reads: [], writes: [], events: [event] });
      }
      return answer;
    },
  };
  return { store: wrapped, arm: () => (armed = true) };
};

/**
 * The SDK fixes where a subscription's '$' stands with a read of the log's end (live-cursor.ts). An event committed
 * between that read's look at the newest entry and its look past it is after the position, and the read returns it:
 * the subscription then starts right before it, so it is replayed, not skipped by a position past it.
 */
describe("a live-only subscription whose '$' was fixed as an event came in", () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('still receives that event', async () => {
    const raced = bigEvent(1, {
      source_agent: 'other',
      source_plan_id: 'p-raced',
      payload: { result: 'r', error: null },
    });
    const { store, arm } = committingAfterHeadRead(createMemoryStore({ eventRetention: 1000 }), raced);
    const server = createServer({ port: 0, logLevel: 'silent' }, { store });
    const { url } = await server.listen();
    cleanups.push(() => server.close());
    const watcher = await connect({ url, workspace: 'ws', agentId: 'watcher' });
    cleanups.push(() => watcher.close());
    await watcher.createPlan({ title: 'Before', steps: ['a'] });
    const seen: TaskEvent[] = [];
    watcher.on('event', (e) => seen.push(e));
    arm();
    await watcher.subscribeToTasks({ agent_id: 'other', event_types: ['step_completed'], after_event: '$' });
    await eventually(() => expect(seen.map((e) => e.source_plan_id)).toEqual(['p-raced']));
  });
});
