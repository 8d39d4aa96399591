import { PlanHubError } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../src/store/memory-store.ts';
import { transact } from '../src/store/transact.ts';

/**
 * A remembered answer replays when its fingerprint is the call's, or the one builds before raw fingerprints stored
 * for it (`earlierFingerprint`), which is worked out only when a remembered answer does not match the first.
 */
describe('transact comparing a remembered answer with the call', () => {
  const body = () => Promise.resolve({ n: 1 });
  const setup = () => {
    const store = createMemoryStore({ eventRetention: 100 });
    let earlier = 0;
    const request = (requestId: string) => ({
      agent_id: 'a',
      request_id: requestId,
      ttl_ms: 60_000,
      fingerprint: 'addStep:raw',
      earlierFingerprint: () => {
        earlier++;
        return 'addStep:parsed';
      },
    });
    const remember = async (requestId: string, fingerprint: string) => {
      const request = { agent_id: 'a', request_id: requestId, answer: { remembered: true }, ttl_ms: 60_000 };
      const commit = { reads: [], writes: [], events: [], request: { ...request, fingerprint } };
      expect((await store.commit('ws', commit)).ok).toBe(true);
    };
    return { store, request, remember, earlier: () => earlier };
  };

  it('stores the call’s own fingerprint and never works out the earlier one for a first call or a same retry', async () => {
    const { store, request, earlier } = setup();
    expect(await transact(store, 'ws', body, { request: request('r') })).toMatchObject({ replayed: false });
    expect(await store.requestAnswer('ws', 'a', 'r')).toEqual({ answer: { n: 1 }, fingerprint: 'addStep:raw' });
    expect(await transact(store, 'ws', body, { request: request('r') })).toMatchObject({ replayed: true });
    expect(earlier()).toBe(0);
  });

  it('replays an answer remembered under the earlier fingerprint', async () => {
    const { store, request, remember, earlier } = setup();
    await remember('r', 'addStep:parsed');
    expect(await transact(store, 'ws', body, { request: request('r') })).toEqual({
      result: { remembered: true },
      events: [],
      replayed: true,
    });
    expect(earlier()).toBe(1);
  });

  it('refuses an answer remembered under any other fingerprint', async () => {
    const { store, request, remember } = setup();
    await remember('r', 'addStep:other');
    const refused = transact(store, 'ws', body, { request: request('r') });
    await expect(refused).rejects.toBeInstanceOf(PlanHubError);
    await expect(refused).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'request_id "r" was already used for addStep with other arguments; use a new request_id.',
    });
  });
});
