import type { CallAck } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { requestFingerprint } from '../../server/src/store/request-fingerprint.ts';
import type { HarnessStoreKind } from '../helpers/servers.ts';
import type { RawClient } from './support/raw-client.ts';
import { startedPlanFixture } from './support/started-plan.ts';

const STORES: readonly HarnessStoreKind[] = ['memory', 'redis', 'file'];

/**
 * During a rolling deploy a retry may reach a node of another version, which parses the same arguments differently
 * (a field one of them does not know, a null one of them drops). The request_id is bound to the arguments as the
 * client sent them, so such a retry replays; arguments sent otherwise are still refused.
 */
describe.each(STORES)('request_id across versions that parse a call differently (%s store)', (kind) => {
  const { start, store } = startedPlanFixture(kind);
  const steps = async (a: RawClient) => {
    const ack = await a.call('getPlanStatus', {});
    if (!ack.ok) throw new Error(ack.error.message);
    return (ack.result as { steps: Array<{ description: string }> }).steps.map((s) => s.description);
  };
  /**
   * Makes the call as another node did, and remembers its answer under `requestId` with `fingerprint`, as that node's
   * commit did (the call itself runs here without a request_id: the remembered answer is a real one).
   */
  const appliedElsewhere = async (a: RawClient, args: object, requestId: string, fingerprint: string) => {
    const ack = await a.call('addStep', args);
    if (!ack.ok) throw new Error(ack.error.message);
    const request = { agent_id: 'a', request_id: requestId, answer: ack.result, ttl_ms: 60_000, fingerprint };
    expect((await store().commit('ws', { reads: [], writes: [], events: [], request })).ok).toBe(true);
    return ack;
  };

  // A field this build does not know (it drops it) and a newer build reads: that build's node applied the call.
  const sent = { description: 'second', review_hint: 'by a newer build' };

  it('replays a retry a node of a newer version answered, whose parse keeps a field this one drops', async () => {
    const a = await start();
    // What that node bound the request_id to: the arguments as sent, which are also the ones it parsed.
    const first = await appliedElsewhere(a, sent, 'skew-1', requestFingerprint('addStep', sent));
    const retry: CallAck = await a.call('addStep', sent, 'skew-1');
    expect(retry).toEqual(first);
    expect(await steps(a)).toEqual(['first', 'second']);
  });

  it('still refuses the request_id with other arguments as sent, even those this build parses the same', async () => {
    const a = await start();
    await appliedElsewhere(a, sent, 'skew-2', requestFingerprint('addStep', sent));
    for (const other of [
      { ...sent, review_hint: 'another hint' },
      { description: 'second' },
      { ...sent, description: 'third' },
    ]) {
      const ack = await a.call('addStep', other, 'skew-2');
      expect(ack).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
      expect(!ack.ok && ack.error.message).toBe(
        'request_id "skew-2" was already used for addStep with other arguments; use a new request_id.',
      );
    }
    expect(await steps(a)).toEqual(['first', 'second']);
  });

  it('replays an answer an earlier build remembered under the fingerprint of the arguments as it parsed them', async () => {
    const a = await start();
    // The earlier build dropped the null (and would drop the unknown field) before hashing.
    const asSent = { description: 'second', after_step_id: null, review_hint: 'x' };
    const first = await appliedElsewhere(a, asSent, 'old-1', requestFingerprint('addStep', { description: 'second' }));
    expect(await a.call('addStep', asSent, 'old-1')).toEqual(first);
    expect(await steps(a)).toEqual(['first', 'second']);
    // Its answer is still bound to that call: another one is refused.
    const other = await a.call('addStep', { description: 'third' }, 'old-1');
    expect(other).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
  });

  it('binds a call made here to the arguments as sent, without request_id, and replays it from anywhere in them', async () => {
    const a = await start();
    const first = await a.call('addStep', { ...sent, request_id: 'here-1' });
    expect(first.ok).toBe(true);
    expect(await store().requestAnswer('ws', 'a', 'here-1')).toMatchObject({
      fingerprint: requestFingerprint('addStep', sent),
    });
    // The same call with request_id beside the arguments instead of among them, and its keys in another order.
    expect(await a.call('addStep', { review_hint: sent.review_hint, description: 'second' }, 'here-1')).toEqual(first);
    expect(await steps(a)).toEqual(['first', 'second']);
  });
});
