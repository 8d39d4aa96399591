import type { NewEvent } from '@planhub/shared';
import { connect } from '@planhub/client-sdk';
import { createMemoryStore, createServer, type Store } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';
import { bigEvent } from '../helpers/big-event.ts';

/**
 * A real store that commits one event of another agent just before it answers the next head read (readEvents with
 * count 1 and no cursor): an event at the very position a "$" read takes, so before it.
 */
const committingAfterHeadRead = (store: Store, event: NewEvent) => {
  let armed = false;
  let taken!: () => void;
  /** Settles once the armed head read has answered: the call's position is taken. */
  const positionTaken = new Promise<void>((resolve) => (taken = resolve));
  const wrapped: Store = {
    ...store,
    limits: store.limits,
    async readEvents(ws, read) {
      if (armed && read.count === 1 && read.after === undefined && read.before === undefined) {
        armed = false;
        await store.commit(ws, { reads: [], writes: [], events: [event] });
        const head = await store.readEvents(ws, read);
        taken();
        return head;
      }
      return store.readEvents(ws, read);
    },
  };
  return { store: wrapped, arm: () => (armed = true), positionTaken };
};

/**
 * getTaskEvents(after_event "$", timeout) waits for what comes after the newest event at the call. An event committed
 * as that position is taken is before it, and must neither be returned nor end the wait: listening used to start
 * before the position was read, so such an event woke the wait, the read after the position found nothing, and the
 * call answered empty at once instead of waiting for the next event.
 */
describe('getTaskEvents after "$" with an event committed as the position is taken', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('waits on past it and returns the next event', async () => {
    const { store, arm, positionTaken } = committingAfterHeadRead(
      createMemoryStore({ eventRetention: 1000 }),
      bigEvent(1, { source_agent: 'other', source_plan_id: 'p-before', payload: { result: 'raced', error: null } }),
    );
    const server = createServer({ port: 0, logLevel: 'silent', approvalPolicy: 'auto' }, { store });
    const { url } = await server.listen();
    cleanups.push(() => server.close());
    const reader = await connect({ url, workspace: 'ws', agentId: 'reader' });
    cleanups.push(() => reader.close());
    await reader.createPlan({ title: 'Before', steps: ['a'] });
    arm();
    const reading = reader.getTaskEvents({ after_event: '$', agent_id: 'other', timeout: 10 });
    // The next event, well after the position was taken (counted from then, however slow the node) and the wait began.
    void positionTaken.then(() =>
      setTimeout(() => {
        const next = bigEvent(2, {
          source_agent: 'other',
          source_plan_id: 'p-after',
          payload: { result: 'next', error: null },
        });
        void store.commit('ws', { reads: [], writes: [], events: [next] });
      }, 500),
    );
    const read = await reading;
    expect(read.events.map((e) => [e.event_type, e.source_agent, e.source_plan_id])).toEqual([
      ['step_completed', 'other', 'p-after'],
    ]);
  });
});
