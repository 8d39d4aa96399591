import type { CallAck } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../helpers/servers.ts';
import type { RawClient } from './support/raw-client.ts';
import { startedPlanFixture } from './support/started-plan.ts';

const planOf = async (a: RawClient) => {
  const ack = await a.call('getPlanStatus', {});
  if (!ack.ok) throw new Error(ack.error.message);
  return ack.result as { steps: Array<{ description: string }> };
};

/** A request_id names one call: the same tool with the same arguments replays, anything else is refused. */
describe.each(STORE_KINDS)('request_id bound to its call on the %s store', (kind) => {
  const { start, store } = startedPlanFixture(kind);

  it('refuses a request_id reused on another tool and changes nothing', async () => {
    const a = await start();
    const first = await a.call('addStep', { description: 'once' }, 'r-1');
    expect(first.ok).toBe(true);
    const eventsBefore = (await store().readEvents('ws', { count: 1000 })).length;
    const other: CallAck = await a.call('setStepStatus', { step_id: 'step_1', status: 'completed' }, 'r-1');
    expect(other).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(!other.ok && other.error.message).toBe(
      'request_id "r-1" was already used for addStep with other arguments; use a new request_id.',
    );
    expect((await planOf(a)).steps.map((s) => s.description)).toEqual(['first', 'once']);
    expect(await store().readEvents('ws', { count: 1000 })).toHaveLength(eventsBefore);
  });

  it('refuses the same tool with other arguments, and replays the same call with its keys in any order', async () => {
    const a = await start();
    const first = await a.call('addStep', { description: 'once', after_step_id: 'step_1' }, 'r-2');
    expect(first.ok).toBe(true);
    const changed = await a.call('addStep', { description: 'twice', after_step_id: 'step_1' }, 'r-2');
    expect(changed).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(!changed.ok && changed.error.message).toMatch(/already used for addStep with other arguments/);
    expect(await a.call('addStep', { after_step_id: 'step_1', description: 'once' }, 'r-2')).toEqual(first);
    expect((await planOf(a)).steps.map((s) => s.description)).toEqual(['first', 'once']);
  });

  it('still replays an answer remembered without a fingerprint, whatever the call', async () => {
    const a = await start();
    const legacy = { step: { id: 'step_9', description: 'remembered before fingerprints' } };
    // A commit without a fingerprint stores the answer as the earlier layout did (bare JSON).
    const outcome = await store().commit('ws', {
      reads: [],
      writes: [],
      events: [],
      request: { agent_id: 'a', request_id: 'r-old', answer: legacy, ttl_ms: 60_000 },
    });
    expect(outcome.ok).toBe(true);
    expect(await a.call('addStep', { description: 'anything' }, 'r-old')).toEqual({ ok: true, result: legacy });
    expect((await planOf(a)).steps.map((s) => s.description)).toEqual(['first']);
  });
});
