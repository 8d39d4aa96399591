import type { Commit, FanIn, Store } from '@planhub/server';
import type { NewEvent } from '@planhub/shared';
import { describe, expect } from 'vitest';
import { capEventSize, OMITTED_OUTPUT } from '../../server/src/events/event-size.ts';
import { storeTest, WS } from './conformance-support.ts';

/** The event cap these tests give capEventSize: the same rule as the 512 KiB default, at a size that is quick. */
const CAP = 3000;
const KEYS = '@@fill-keys@@';
const VALUES = '@@fill-values@@';
const SET = 'out:p:step_2';
const HASH = 'recv:p:step_2';

const unblocked = (payload: Record<string, unknown>): NewEvent => ({
  event_type: 'step_unblocked',
  timestamp: new Date(1_700_000_000_000).toISOString(),
  workspace: WS,
  source_agent: 'parent',
  source_plan_id: 'p',
  source_plan_title: 'merge',
  source_step_id: 'step_2',
  source_step_description: 'merge the parts',
  source_step_sequence: 2,
  payload: { ...payload, unblocked_by: { agent_id: 'e', plan_id: 'q', step_id: 'step_1' }, unblocked_by_agent: 'e' },
});

/** As tools/dependents.ts delivers: record the output, and the last delivery announces every key and value. */
const deliver = (member: string, value: unknown): FanIn => ({
  set: SET,
  member,
  record: { hash: HASH, fields: { [JSON.stringify(`${member}:step_1`)]: JSON.stringify(value) } },
  then: {
    reads: [],
    writes: [{ key: 'received', value: { outputs: VALUES } }],
    ops: [],
    events: [unblocked({ received_outputs: KEYS, outputs: VALUES })],
    fills: [
      { token: KEYS, hash: HASH, as: 'keys' },
      { token: VALUES, hash: HASH, as: 'object' },
    ],
  },
});

const commit = (store: Store, c: Partial<Commit>) => store.commit(WS, { reads: [], writes: [], events: [], ...c });

/** Each member delivers its value through the capped store; the last one's commit fires. */
const fanIn = async (store: Store, values: Record<string, unknown>) => {
  const members = Object.keys(values);
  await commit(store, { ops: [{ op: 'sadd', key: SET, members }] });
  const capped = capEventSize(store, CAP);
  for (const [member, value] of Object.entries(values)) {
    const outcome = await commit(capped, { fanIns: [deliver(member, value)] });
    expect(outcome.ok).toBe(true);
  }
  return store.readEvents(WS, { count: 10 });
};

const blob = (bytes: number) => ({ blob: 'x'.repeat(bytes) });
/** b and d do not fit beside a; c and e, after them in key order, still do. */
const BIG = { a: blob(1000), b: blob(2500), c: blob(300), d: blob(2000), e: blob(50) };
const ALL_KEYS = ['a:step_1', 'b:step_1', 'c:step_1', 'd:step_1', 'e:step_1'];
const FITTED = {
  received_outputs: ALL_KEYS,
  outputs: {
    'a:step_1': BIG.a,
    'b:step_1': OMITTED_OUTPUT,
    'c:step_1': BIG.c,
    'd:step_1': OMITTED_OUTPUT,
    'e:step_1': BIG.e,
  },
  unblocked_by: { agent_id: 'e', plan_id: 'q', step_id: 'step_1' },
  unblocked_by_agent: 'e',
  outputs_omitted: ['b:step_1', 'd:step_1'],
};

const bytesOf = ({ event_id: _, ...event }: { event_id: string }) => Buffer.byteLength(JSON.stringify(event));

/**
 * A fan-in's step_unblocked is filled by the store with every received output, after capEventSize measured it with a
 * token in their place: 150 outputs of 60 KB made a 9 MB event, which cut its own waiting agent as a slow consumer.
 * Now the store keeps the event within the cap (the one capEventSize is given), and says which outputs it left out.
 */
describe.each(['memory', 'redis', 'redis-cluster', 'file'] as const)(
  'a fan-in event within the cap (%s store)',
  (kind) => {
    const it = storeTest(kind);

    it('carries the outputs that fit in key order, a marker for the others, and names them', async ({ store }) => {
      const events = await fanIn(store, BIG);

      expect(events).toHaveLength(1);
      const event = events[0] as NewEvent & { event_id: string };
      expect(bytesOf(event)).toBeLessThanOrEqual(CAP);
      // The same text on every store: the kept outputs, their order, the markers, the list.
      expect(event.payload).toEqual(FITTED);
      expect(Object.keys(event.payload.outputs ?? {})).toEqual(ALL_KEYS);
      // Every output stays stored, and a document the fan-in writes gets them all.
      const { hashes } = await store.loadCollections(WS, { hashes: [HASH] });
      expect(Object.keys(hashes[0] ?? {})).toHaveLength(5);
      const [doc] = await store.load(WS, ['received']);
      expect(doc?.value).toEqual({
        outputs: Object.fromEntries(Object.entries(BIG).map(([k, v]) => [`${k}:step_1`, v])),
      });
    });

    it('leaves an event under the cap as it was', async ({ store }) => {
      const small = { a: { n: 1 }, b: blob(500), c: 'three' };
      const events = await fanIn(store, small);

      expect(events).toHaveLength(1);
      expect(Object.keys(events[0]?.payload ?? {})).toEqual([
        'received_outputs',
        'outputs',
        'unblocked_by',
        'unblocked_by_agent',
      ]);
      expect(events[0]?.payload).toEqual({
        received_outputs: ['a:step_1', 'b:step_1', 'c:step_1'],
        outputs: { 'a:step_1': { n: 1 }, 'b:step_1': blob(500), 'c:step_1': 'three' },
        unblocked_by: { agent_id: 'e', plan_id: 'q', step_id: 'step_1' },
        unblocked_by_agent: 'e',
      });
    });

    it('fits one whose keys alone fill it as best it can, and still fires', async ({ store }) => {
      // Every value is larger than the room left: all are left out, and the event is as small as it gets.
      const events = await fanIn(store, { a: blob(2900), b: blob(2900) });
      expect(events[0]?.payload).toMatchObject({
        outputs: { 'a:step_1': OMITTED_OUTPUT, 'b:step_1': OMITTED_OUTPUT },
        outputs_omitted: ['a:step_1', 'b:step_1'],
      });
      expect(bytesOf(events[0] as { event_id: string })).toBeLessThanOrEqual(CAP);
    });
  },
);

/**
 * A step_unblocked the call makes whole (a step waiting on its own plan's steps, or on steps that all ended before it
 * was added) was refused past the cap: the last completion, or the addDependentStep, failed RESOURCE_EXHAUSTED. It is
 * now the event a fan-in makes; any other event past the cap is refused as before.
 */
describe('a step_unblocked the call makes, past the cap (memory store)', () => {
  const it = storeTest('memory');

  it('is fitted as a fan-in fits it, not refused', async ({ store }) => {
    const outputs = Object.fromEntries(Object.entries(BIG).map(([k, v]) => [`${k}:step_1`, v]));
    const event = unblocked({ received_outputs: ALL_KEYS, outputs });
    const outcome = await commit(capEventSize(store, CAP), { events: [event] });

    expect(outcome.ok).toBe(true);
    const [logged] = await store.readEvents(WS, { count: 1 });
    expect(logged?.payload).toEqual(FITTED);
  });

  it('still refuses any other event past the cap', async ({ store }) => {
    const event = { ...unblocked({}), event_type: 'step_completed' as const, payload: { result: 'x'.repeat(CAP) } };
    await expect(commit(capEventSize(store, CAP), { events: [event] })).rejects.toMatchObject({
      code: 'RESOURCE_EXHAUSTED',
      details: { kind: 'event_bytes', limit: CAP },
    });
    expect(await store.readEvents(WS, { count: 1 })).toEqual([]);
  });
});
