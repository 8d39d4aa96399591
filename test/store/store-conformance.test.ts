import { describe, expect } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { STORE_FIXTURE_KINDS } from '../helpers/stores.ts';
import { WS, append, collect, event, storeTest } from './conformance-support.ts';

/** Documents, requests, atomicity and lifecycle of every store; store-event-log.test.ts covers its event log. */
describe.each(STORE_FIXTURE_KINDS)('the %s store', (kind) => {
  const it = storeTest(kind);

  describe('documents', () => {
    it('reports a missing document as version 0 and counts versions up from 1', async ({ store }) => {
      expect(await store.load(WS, ['a', 'b'])).toEqual([
        { value: undefined, version: 0 },
        { value: undefined, version: 0 },
      ]);
      expect(
        await store.commit(WS, {
          reads: [{ key: 'a', version: 0 }],
          writes: [{ key: 'a', value: { x: 1 } }],
          events: [],
        }),
      ).toEqual({ ok: true, events: [] });
      expect(await store.load(WS, ['a', 'b'])).toEqual([
        { value: { x: 1 }, version: 1 },
        { value: undefined, version: 0 },
      ]);
      await store.commit(WS, {
        reads: [{ key: 'a', version: 1 }],
        writes: [{ key: 'a', value: [1, 'two', { three: null }] }],
        events: [],
      });
      expect(await store.load(WS, ['a'])).toEqual([{ value: [1, 'two', { three: null }], version: 2 }]);
    });

    it('loads nothing for an empty key list', async ({ store }) => {
      expect(await store.load(WS, [])).toEqual([]);
    });

    it('hands out values whose change changes nothing stored: copies, or long ones shared frozen', async ({
      store,
    }) => {
      const long = { list: [1], pad: 'x'.repeat(5000) };
      await store.commit(WS, {
        reads: [],
        writes: [
          { key: 'a', value: { list: [1] } },
          { key: 'long', value: long },
        ],
        events: [],
      });
      const [short, shared] = await store.load(WS, ['a', 'long']);
      (short?.value as { list: number[] }).list.push(2);
      expect(() => (shared?.value as { list: number[] }).list.push(2)).toThrow(TypeError);
      const [shortAgain, sharedAgain] = await store.load(WS, ['a', 'long']);
      expect(shortAgain?.value).toEqual({ list: [1] });
      expect(sharedAgain?.value).toEqual(long);
    });

    it('refuses a commit whose read is stale and keeps the first writer’s value', async ({ store }) => {
      await store.commit(WS, { reads: [], writes: [{ key: 'a', value: 'v1' }], events: [] });
      const first = await store.commit(WS, {
        reads: [{ key: 'a', version: 1 }],
        writes: [{ key: 'a', value: 'first' }],
        events: [],
      });
      const second = await store.commit(WS, {
        reads: [{ key: 'a', version: 1 }],
        writes: [{ key: 'a', value: 'second' }],
        events: [],
      });
      expect(first.ok).toBe(true);
      expect(second).toEqual({ ok: false, reason: 'conflict' });
      expect(await store.load(WS, ['a'])).toEqual([{ value: 'first', version: 2 }]);
    });

    it('lets only one of two blind creates of the same document win', async ({ store }) => {
      const create = (value: string) =>
        store.commit(WS, { reads: [{ key: 'new', version: 0 }], writes: [{ key: 'new', value }], events: [] });
      const outcomes = await Promise.all([create('one'), create('two')]);
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
      expect(outcomes.filter((o) => !o.ok)).toEqual([{ ok: false, reason: 'conflict' }]);
      const [doc] = await store.load(WS, ['new']);
      expect(doc?.version).toBe(1);
      expect(['one', 'two']).toContain(doc?.value);
    });

    it('deletes a document with a null write, after which it can be created again', async ({ store }) => {
      await store.commit(WS, {
        reads: [],
        writes: [
          { key: 'a', value: 1 },
          { key: 'b', value: 2 },
        ],
        events: [],
      });
      expect(
        await store.commit(WS, { reads: [{ key: 'a', version: 1 }], writes: [{ key: 'a', value: null }], events: [] }),
      ).toMatchObject({ ok: true });
      expect(await store.load(WS, ['a', 'b'])).toEqual([
        { value: undefined, version: 0 },
        { value: 2, version: 1 },
      ]);
      expect(
        await store.commit(WS, { reads: [{ key: 'a', version: 0 }], writes: [{ key: 'a', value: 3 }], events: [] }),
      ).toMatchObject({ ok: true });
      expect(await store.load(WS, ['a'])).toEqual([{ value: 3, version: 1 }]);
    });

    it('keeps workspaces apart: same keys, separate documents and logs', async ({ store }) => {
      await store.commit('ws-a', { reads: [], writes: [{ key: 'k', value: 'a' }], events: [event(1, 'ws-a')] });
      await store.commit('ws-b', { reads: [], writes: [{ key: 'k', value: 'b' }], events: [event(2, 'ws-b')] });
      expect((await store.load('ws-a', ['k']))[0]?.value).toBe('a');
      expect((await store.load('ws-b', ['k']))[0]?.value).toBe('b');
      expect((await store.readEvents('ws-a', { count: 10 })).map((e) => e.source_step_id)).toEqual(['step_1']);
      expect((await store.readEvents('ws-b', { count: 10 })).map((e) => e.source_step_id)).toEqual(['step_2']);
    });

    it('serializes concurrent read-modify-write commits with no lost update', async ({ store }) => {
      const increment = async () => {
        for (;;) {
          const [doc] = await store.load(WS, ['counter']);
          const n = (doc?.value as number | undefined) ?? 0;
          const outcome = await store.commit(WS, {
            reads: [{ key: 'counter', version: doc?.version ?? 0 }],
            writes: [{ key: 'counter', value: n + 1 }],
            events: [],
          });
          if (outcome.ok) return;
        }
      };
      await Promise.all(Array.from({ length: 25 }, increment));
      expect(await store.load(WS, ['counter'])).toEqual([{ value: 25, version: 25 }]);
    });
  });

  describe('requests', () => {
    const request = (answer: unknown, agent_id = 'agent-1', request_id = 'req-1') => ({
      agent_id,
      request_id,
      answer,
      ttl_ms: 60_000,
    });

    it('remembers a request’s answer and refuses to apply the request again', async ({ store }) => {
      expect(await store.requestAnswer(WS, 'agent-1', 'req-1')).toBeUndefined();
      await store.commit(WS, {
        reads: [],
        writes: [{ key: 'a', value: 1 }],
        events: [event(1)],
        request: request({ done: 1 }),
      });
      expect(await store.requestAnswer(WS, 'agent-1', 'req-1')).toEqual({ answer: { done: 1 } });
      const again = await store.commit(WS, {
        reads: [],
        writes: [{ key: 'a', value: 2 }],
        events: [event(2)],
        request: request({ done: 2 }),
      });
      expect(again).toEqual({ ok: false, reason: 'conflict' });
      expect(await store.load(WS, ['a'])).toEqual([{ value: 1, version: 1 }]);
      expect(await store.readEvents(WS, { count: 10 })).toHaveLength(1);
      expect(await store.requestAnswer(WS, 'agent-1', 'req-1')).toEqual({ answer: { done: 1 } });
    });

    it('reads a request’s remembered answer with documents in one read, as requestAnswer gives it', async ({
      store,
    }) => {
      const asked = { agent_id: 'agent-1', request_id: 'req-1' };
      const before = await store.loadWith(WS, ['a'], { request: asked });
      expect(before).toMatchObject({ docs: [{ value: undefined, version: 0 }], request: undefined });
      expect('request' in before).toBe(true);
      await store.commit(WS, {
        reads: [],
        writes: [{ key: 'a', value: 1 }],
        events: [],
        request: request({ done: 1 }),
      });
      const after = await store.loadWith(WS, ['a'], { request: asked, hashes: ['h'] });
      expect(after).toEqual({
        docs: [{ value: 1, version: 1 }],
        hashes: [{}],
        ranges: [],
        request: { answer: { done: 1 } },
      });
      // Another agent's request of the same id, and a load that asks for none, carry no answer.
      expect((await store.loadWith(WS, ['a'], { request: { ...asked, agent_id: 'agent-2' } })).request).toBeUndefined();
      expect('request' in (await store.loadWith(WS, ['a'], {}))).toBe(false);
    });

    it('keeps request ids apart per agent, even when names contain colons', async ({ store }) => {
      await store.commit(WS, { reads: [], writes: [], events: [], request: request('a:b / c', 'a:b', 'c') });
      expect(await store.requestAnswer(WS, 'a', 'b:c')).toBeUndefined();
      await store.commit(WS, { reads: [], writes: [], events: [], request: request('a / b:c', 'a', 'b:c') });
      expect(await store.requestAnswer(WS, 'a:b', 'c')).toEqual({ answer: 'a:b / c' });
      expect(await store.requestAnswer(WS, 'a', 'b:c')).toEqual({ answer: 'a / b:c' });
      expect(await store.requestAnswer('ws-other', 'a', 'b:c')).toBeUndefined();
    });

    it('remembers a null answer as null', async ({ store }) => {
      await store.commit(WS, { reads: [], writes: [], events: [], request: request(null) });
      expect(await store.requestAnswer(WS, 'agent-1', 'req-1')).toEqual({ answer: null });
    });

    it('forgets a request after its time to live', async ({ store }) => {
      await store.commit(WS, { reads: [], writes: [], events: [], request: { ...request('x'), ttl_ms: 1 } });
      await poll(() => store.requestAnswer(WS, 'agent-1', 'req-1')).toBeUndefined();
      expect(await store.commit(WS, { reads: [], writes: [], events: [], request: request('y') })).toMatchObject({
        ok: true,
      });
    });
  });

  describe('atomicity', () => {
    it('a conflicting commit writes nothing, remembers nothing and emits nothing', async ({ store }) => {
      const { seen } = collect(store);
      const [first] = await append(store, [event(1)]);
      await store.commit(WS, {
        reads: [],
        writes: [
          { key: 'a', value: 'a1' },
          { key: 'b', value: 'b1' },
        ],
        events: [],
      });
      const refused = await store.commit(WS, {
        reads: [
          { key: 'a', version: 1 },
          { key: 'b', version: 0 }, // stale
        ],
        writes: [
          { key: 'a', value: 'a2' },
          { key: 'c', value: 'c1' },
          { key: 'b', value: null },
        ],
        events: [event(2), event(3)],
        request: { agent_id: 'agent-1', request_id: 'r', answer: 'no', ttl_ms: 60_000 },
      });
      expect(refused).toEqual({ ok: false, reason: 'conflict' });
      // A later commit's event arriving proves the refused one's events would have arrived before it.
      const [marker] = await append(store, [event(4)]);
      await poll(() => seen.at(-1)).toEqual(marker);
      expect(seen).toEqual([first, marker]);
      expect(await store.load(WS, ['a', 'b', 'c'])).toEqual([
        { value: 'a1', version: 1 },
        { value: 'b1', version: 1 },
        { value: undefined, version: 0 },
      ]);
      expect((await store.readEvents(WS, { count: 10 })).map((e) => e.source_step_sequence)).toEqual([1, 4]);
      expect(await store.requestAnswer(WS, 'agent-1', 'r')).toBeUndefined();
    });
  });

  describe('lifecycle', () => {
    it('answers ping while open, and closes idempotently', async ({ store }) => {
      await expect(store.ping()).resolves.toBeUndefined();
      await Promise.all([store.close(), store.close()]);
      await store.close();
      await expect(store.ping()).rejects.toThrow();
    });
  });
});
