import { PlanHubError } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../src/store/memory-store.ts';
import { callBudget } from '../src/store/call-budget.ts';
import { transact } from '../src/store/transact.ts';
import { readCounting } from '../../test/helpers/read-counting-store.ts';

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

  it('reads the remembered answer with the first documents the body reads, not in a read of its own', async () => {
    const store = createMemoryStore({ eventRetention: 100 });
    // The memory store itself, counting what each attempt asks of it.
    const { store: counted, reads } = readCounting(store);
    const asked = reads.calls;
    const body = async (tx: Parameters<Parameters<typeof transact>[2]>[0]) => {
      const [doc] = await tx.getMany(['doc']);
      tx.put('doc', { n: ((doc as { n?: number } | undefined)?.n ?? 0) + 1 });
      return { n: 1 };
    };
    expect(await transact(counted, 'ws', body, { request })).toMatchObject({ replayed: false });
    expect(asked).toEqual(['loadWith', 'commit']);
    asked.length = 0;
    // The retry: the same single read finds the answer, and nothing is applied again.
    expect(await transact(counted, 'ws', body, { request })).toMatchObject({ result: { n: 1 }, replayed: true });
    expect(asked).toEqual(['loadWith']);
    expect((await store.load('ws', ['doc']))[0]).toEqual({ value: { n: 1 }, version: 1 });
  });

  it('still reports the body’s refusal when the request was never applied', async () => {
    const store = createMemoryStore({ eventRetention: 100 });
    await expect(
      transact(store, 'ws', () => Promise.reject(new PlanHubError('NOT_FOUND', 'no such plan')), { request }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('transact with a store budget', () => {
  it('gives all of a call’s round trips one deadline, however many there are', async () => {
    const memory = createMemoryStore({ eventRetention: 100 });
    // A store that answers, slowly: each read takes 60 % of the budget, so the second one runs out of it.
    const slow = {
      ...memory,
      load: (ws: string, keys: readonly string[]) => sleep(120).then(() => memory.load(ws, keys)),
    };
    const started = performance.now();
    const outcome = transact(
      slow,
      'ws',
      async (tx) => {
        await tx.getMany(['a']);
        await tx.getMany(['b']);
        return 'read both';
      },
      { budget: callBudget(200) },
    );
    await expect(outcome).rejects.toMatchObject({ code: 'UNAVAILABLE', details: { kind: 'store_deadline' } });
    expect(performance.now() - started).toBeLessThan(400);
    // Without a budget the same reads take what they take.
    await expect(
      transact(slow, 'ws', async (tx) => {
        await tx.getMany(['a']);
        await tx.getMany(['b']);
        return 'read both';
      }),
    ).resolves.toMatchObject({ result: 'read both' });
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('two reads of one document in flight at once', () => {
  it('keep the version the body read, so a commit between them makes the attempt run again', async () => {
    const store = createMemoryStore({ eventRetention: 100 });
    const put = (n: number) =>
      transact(store, 'ws', async (tx) => {
        await tx.getMany(['doc']);
        tx.put('doc', { n });
        return {};
      });
    await put(1);
    // The real store, each of the first two loads answered only when its gate opens (in the order chosen below).
    const gate = () => {
      let resolve = () => {};
      const promise = new Promise<void>((r) => (resolve = r));
      return { promise, resolve };
    };
    const gates = [gate(), gate()];
    let loads = 0;
    const slow = Object.assign(Object.create(store) as typeof store, {
      load: async (workspace: string, keys: readonly string[]) => {
        const opens = gates[loads++];
        const read = await store.load(workspace, keys);
        await opens?.promise;
        return read;
      },
    });
    let attempts = 0;
    const result = transact(slow, 'ws', async (tx) => {
      attempts++;
      const first = tx.getMany(['doc']);
      await Promise.resolve();
      if (attempts === 1) await put(10);
      const second = tx.getMany(['doc']);
      gates[0]?.resolve();
      const [[mine]] = await Promise.all([first]);
      gates[1]?.resolve();
      await second;
      tx.put('doc', { n: (mine as { n: number }).n + 1 });
      return {};
    });
    await result;
    // The body's value came from version 1; committing against version 2 would lose the write of 10.
    expect(attempts).toBe(2);
    expect((await store.load('ws', ['doc']))[0]?.value).toEqual({ n: 11 });
  });
});
