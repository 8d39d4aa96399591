import { PlanHubError } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../src/store/memory-store.ts';
import { transact } from '../src/store/transaction.ts';

const request = { agent_id: 'main', request_id: 'r-1', ttl_ms: 60_000 };

describe('transact with a request_id', () => {
  it('answers a retry from the request log even when the body would now refuse', async () => {
    const store = createMemoryStore({ eventRetention: 100 });
    const first = await transact(
      store,
      'ws',
      (tx) => {
        tx.put('doc', { n: 1 });
        return Promise.resolve({ created: true });
      },
      { request },
    );
    expect(first).toMatchObject({ result: { created: true }, replayed: false });
    let ran = false;
    const retry = await transact(
      store,
      'ws',
      () => {
        ran = true;
        return Promise.reject(new PlanHubError('FAILED_PRECONDITION', 'already exists'));
      },
      { request },
    );
    expect(retry).toEqual({ result: { created: true }, events: [], replayed: true });
    expect(ran).toBe(true);
    expect((await store.load('ws', ['doc']))[0]).toEqual({ value: { n: 1 }, version: 1 });
  });

  it('still reports the body’s refusal when the request was never applied', async () => {
    const store = createMemoryStore({ eventRetention: 100 });
    await expect(
      transact(store, 'ws', () => Promise.reject(new PlanHubError('NOT_FOUND', 'no such plan')), { request }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
