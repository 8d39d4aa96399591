import type { Caller, EventEnvelope, NewEvent, Subscription } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { EventHub } from '../src/events/event-hub.ts';
import { createMemoryStore } from '../src/store/memory-store.ts';
import type { Store } from '../src/store/store.ts';
import { EventStream } from '../src/transport/event-stream.ts';
import { eventually } from '../../test/helpers/eventually.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

const newEvent = (n: number, agent = 'producer'): NewEvent => ({
  event_type: 'step_completed',
  timestamp: new Date(0).toISOString(),
  workspace: 'ws',
  source_agent: agent,
  source_plan_id: 'p',
  source_plan_title: 'P',
  source_step_id: `step_${n}`,
  source_step_description: 'x',
  source_step_sequence: n,
  payload: {},
});

const sub = (id: string, over: Partial<Subscription> = {}): Subscription => ({
  subscription_id: id,
  agent_id: '*',
  event_types: ['step_completed'],
  created_at: new Date(0).toISOString(),
  ...over,
});

/** The memory store, with every log read spread over a few turns of the event loop so commits land in between. */
const slowReads = (store: Store): Store => ({
  ...store,
  async readEvents(workspace, range) {
    await tick();
    const events = await store.readEvents(workspace, range);
    await tick();
    return events;
  },
});

describe('a connection event stream', () => {
  const closers: (() => unknown)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  const setup = (
    stored: Subscription[] | (() => Promise<Subscription[]>) = [],
    viewer: Caller = { workspace: 'ws', agent_id: 'watcher', role: 'agent' },
    pace?: () => Promise<void> | undefined,
  ) => {
    const memory = createMemoryStore({ eventRetention: 10_000 });
    const store = slowReads(memory);
    const hub = new EventHub(memory, (err) => {
      throw err;
    });
    const sent: EventEnvelope[] = [];
    const stream = new EventStream({
      viewer,
      hub,
      store,
      send: (e) => sent.push(e),
      loadSubscriptions: typeof stored === 'function' ? stored : () => Promise.resolve(stored),
      ...(pace ? { pace } : {}),
    });
    closers.push(
      () => stream.close(),
      () => hub.close(),
      () => memory.close(),
    );
    let n = 0;
    const commit = async (count: number, agent?: string) => {
      for (let i = 0; i < count; i++) {
        await memory.commit('ws', { reads: [], writes: [], events: [newEvent(++n, agent)] });
        await tick();
      }
    };
    const log = async () => memory.readEvents('ws', { after: '0-0', count: 10_000 });
    return { stream, sent, commit, log };
  };

  it('replays after the cursor and merges live events committed meanwhile, each once and in order', async () => {
    for (let round = 0; round < 20; round++) {
      const { stream, sent, commit, log } = setup();
      await commit(30);
      const cursor = (await log())[9]?.event_id;
      const [answer] = await Promise.all([stream.subscribe(sub('s1'), cursor), commit(30)]);
      await commit(10);
      const expected = (await log()).slice(10).map((e) => e.event_id);
      expect(sent.map((e) => e.event_id)).toEqual(expected);
      expect(answer.replayed).toBeGreaterThanOrEqual(20);
      stream.close();
    }
  });

  it('goes live from the log head without after_event, for all stored subscriptions too', async () => {
    const { stream, sent, commit } = setup([sub('stored', { agent_id: 'other' })]);
    await commit(5);
    const answer = await stream.subscribe(sub('s1', { event_types: ['step_failed'] }), undefined);
    expect(answer).toMatchObject({ replayed: 0 });
    await commit(2, 'other');
    await commit(2, 'producer');
    expect(sent.map((e) => e.source_agent)).toEqual(['other', 'other']);
    expect(answer.last_event_id).not.toBe('0-0');
  });

  it('applies a later subscription from the stream position, and an unsubscribe at once', async () => {
    // What the agent has stored: subscribeToTasks stores each subscription before the stream hears of it.
    const stored: Subscription[] = [];
    const { stream, sent, commit } = setup(stored);
    stored.push(sub('s1', { agent_id: 'a' }));
    await stream.subscribe(sub('s1', { agent_id: 'a' }), '0-0');
    await commit(3, 'b');
    stored.push(sub('s2', { agent_id: 'b' }));
    const later = await stream.subscribe(sub('s2', { agent_id: 'b' }), '0-0');
    expect(later.replayed).toBe(0);
    await commit(1, 'b');
    await commit(1, 'a');
    stream.unsubscribe(['s2']);
    await commit(1, 'b');
    expect(sent.map((e) => `${e.source_agent}:${e.source_step_id}`)).toEqual(['b:step_4', 'a:step_5']);
  });

  it('drops, at a later subscription, what the agent unsubscribed on another connection', async () => {
    const stored: Subscription[] = [sub('s1', { agent_id: 'a' })];
    const { stream, sent, commit } = setup(stored);
    await stream.subscribe(sub('s1', { agent_id: 'a' }), '0-0');
    // Another connection (on another node, which cannot tell this stream) removed s1 from the store.
    stored.splice(0, 1, sub('s2', { agent_id: 'b' }));
    await stream.subscribe(sub('s2', { agent_id: 'b' }), undefined);
    await commit(1, 'a');
    await commit(1, 'b');
    expect(sent.map((e) => `${e.source_agent}:${e.source_step_id}`)).toEqual(['b:step_2']);
  });

  it('keeps an unsubscribe made while a later subscribe reads the stored subscriptions', async () => {
    let release: (subs: Subscription[]) => void = () => {};
    let reads = 0;
    const load = () =>
      ++reads === 1
        ? Promise.resolve([sub('s1', { agent_id: 'a' })])
        : new Promise<Subscription[]>((resolve) => (release = resolve));
    const { stream, sent, commit } = setup(load);
    await stream.subscribe(sub('s1', { agent_id: 'a' }), '0-0');
    const later = stream.subscribe(sub('s2', { agent_id: 'b' }), undefined);
    await tick();
    stream.unsubscribe(['s1']);
    // The read began before the unsubscribe committed: it still holds s1.
    release([sub('s1', { agent_id: 'a' }), sub('s2', { agent_id: 'b' })]);
    await later;
    await commit(1, 'a');
    await commit(1, 'b');
    expect(sent.map((e) => `${e.source_agent}:${e.source_step_id}`)).toEqual(['b:step_2']);
  });

  it('does not push the agent its own events', async () => {
    const { stream, sent, commit } = setup();
    await commit(2, 'watcher');
    await commit(1, 'producer');
    expect(await stream.subscribe(sub('s1'), '0-0')).toMatchObject({ replayed: 1 });
    await commit(1, 'watcher');
    await commit(1, 'producer');
    expect(sent.map((e) => e.source_step_id)).toEqual(['step_3', 'step_5']);
  });

  it('pushes nothing once the connection closed, even in the middle of starting', async () => {
    const { stream, sent, commit } = setup();
    await commit(2);
    const starting = stream.subscribe(sub('s1'), '0-0');
    stream.close();
    await starting;
    await commit(2);
    expect(sent).toEqual([]);
  });

  it('waits on the pace between replayed events, and reads back live events that overflow what it holds meanwhile', async () => {
    // The connection's queue is full until the test says otherwise: the replay stops after its first event.
    let release: (() => void) | undefined;
    const full = new Promise<void>((resolve) => (release = resolve));
    let paused = true;
    let asked = 0;
    const pace = () => {
      asked += 1;
      return paused ? full : undefined;
    };
    const { stream, sent, commit, log } = setup(undefined, undefined, pace);
    await commit(30);
    const starting = stream.subscribe(sub('s1'), '0-0');
    await eventually(() => expect(sent).toHaveLength(1));
    // Far more live events than it holds while waiting: the oldest are dropped, the log still has them.
    await commit(250);
    expect(sent).toHaveLength(1);
    paused = false;
    release?.();
    const answer = await starting;
    await commit(10);
    const expected = (await log()).map((e) => e.event_id);
    expect(expected).toHaveLength(290);
    expect(sent.map((e) => e.event_id)).toEqual(expected);
    expect(answer.replayed).toBeGreaterThanOrEqual(30);
    // Asked after every event pushed while catching up, not once live.
    expect(asked).toBe(280);
  });
  it('pushes every live event committed on the microtasks around the end of its catch-up', async () => {
    // On the memory store another call's commit runs on a microtask and hands its events to the hub at once, so
    // an event can arrive between the catch-up's last look at what it holds and its switch to pushing live ones.
    for (let offset = 0; offset < 30; offset++) {
      const memory = createMemoryStore({ eventRetention: 10_000 });
      const hub = new EventHub(memory, (err) => {
        throw err;
      });
      let n = 0;
      const commitNow = () => void memory.commit('ws', { reads: [], writes: [], events: [newEvent(++n)] });
      await memory.commit('ws', { reads: [], writes: [], events: [newEvent(++n)] });
      // Each read answers, then commits one event on each of the microtasks after the first `offset`.
      const store: Store = {
        ...memory,
        async readEvents(workspace, range) {
          const events = await memory.readEvents(workspace, range);
          let chain = Promise.resolve();
          for (let i = 0; i < offset; i++) chain = chain.then(() => undefined);
          for (let i = 0; i < 10; i++) chain = chain.then(commitNow);
          return events;
        },
      };
      const sent: EventEnvelope[] = [];
      const stream = new EventStream({
        viewer: { workspace: 'ws', agent_id: 'watcher', role: 'agent' },
        hub,
        store,
        send: (e) => sent.push(e),
        loadSubscriptions: () => Promise.resolve([]),
      });
      closers.push(
        () => stream.close(),
        () => hub.close(),
        () => memory.close(),
      );
      await stream.subscribe(sub('s1'), '0-0');
      await tick();
      await memory.commit('ws', { reads: [], writes: [], events: [newEvent(++n)] });
      const log = await memory.readEvents('ws', { after: '0-0', count: 10_000 });
      expect(log).toHaveLength(12);
      expect({ offset, sent: sent.map((e) => e.event_id) }).toEqual({ offset, sent: log.map((e) => e.event_id) });
    }
  });
});
