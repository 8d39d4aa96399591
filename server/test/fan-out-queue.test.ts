import type { EventEnvelope } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { FAN_OUT_BACKLOG, FAN_OUT_CHUNK, FanOutQueue, type Listener } from '../src/events/fan-out-queue.ts';

const event = (n: number) => ({ event_id: `${n}-0` }) as EventEnvelope;
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** `count` listeners that write "<listener>:<event id>" to one log, and the queue they are handed to. */
const setUp = (count: number) => {
  const log: string[] = [];
  const errors: unknown[] = [];
  const live = new Set<Listener>();
  const listeners = Array.from({ length: count }, (_, i) => {
    const listener: Listener = (e) => log.push(`${i}:${e.event_id}`);
    live.add(listener);
    return listener;
  });
  const queue = new FanOutQueue(
    (l) => live.has(l),
    (err) => errors.push(err),
  );
  return { log, errors, live, listeners, queue };
};

describe('a workspace fan-out queue', () => {
  it('hands an event with at most a chunk of listeners out at once', () => {
    const { log, listeners, queue } = setUp(FAN_OUT_CHUNK);
    queue.push(event(1), listeners);
    expect(log).toHaveLength(FAN_OUT_CHUNK);
  });

  it('hands a larger fan-out out a chunk at a time, with other work run between chunks', async () => {
    const { log, live, listeners, queue } = setUp(2 * FAN_OUT_CHUNK + 10);
    // Work that became ready while the first chunk ran (another connection's call, say).
    const first: Listener = () => void setImmediate(() => log.push('other'));
    live.add(first);
    listeners.unshift(first);
    queue.push(event(1), listeners);
    expect(log).toHaveLength(FAN_OUT_CHUNK - 1);
    await turn();
    expect(log.indexOf('other')).toBe(FAN_OUT_CHUNK - 1);
    for (let i = 0; i < 3; i++) await turn();
    expect(log.filter((entry) => entry !== 'other')).toEqual(listeners.slice(1).map((_, i) => `${i}:1-0`));
  });

  it('keeps log order: every listener gets an event before any gets the next', async () => {
    const { log, listeners, queue } = setUp(3 * FAN_OUT_CHUNK);
    queue.push(event(1), listeners);
    queue.push(event(2), listeners);
    queue.push(event(3), listeners.slice(0, 5));
    for (let i = 0; i < 10; i++) await turn();
    const ids = log.map((entry) => entry.split(':')[1]);
    const times = (n: number, id: string) => Array.from({ length: n }, () => id);
    expect(ids).toEqual([...times(listeners.length, '1-0'), ...times(listeners.length, '2-0'), ...times(5, '3-0')]);
  });

  it('skips a listener that left while its event waited', async () => {
    const { log, live, listeners, queue } = setUp(2 * FAN_OUT_CHUNK);
    queue.push(event(1), listeners);
    live.delete(listeners.at(-1)!);
    await turn();
    expect(log).toHaveLength(2 * FAN_OUT_CHUNK - 1);
    expect(log).not.toContain(`${2 * FAN_OUT_CHUNK - 1}:1-0`);
  });

  it('hands out at once only what passes the bound, so the queue cannot grow without end, and chunks the rest', async () => {
    const { log, listeners, queue } = setUp(FAN_OUT_CHUNK * 4);
    const events = Math.ceil(FAN_OUT_BACKLOG / listeners.length) + 1;
    for (let n = 1; n <= events; n++) queue.push(event(n), listeners);
    const total = events * listeners.length;
    expect(log).toHaveLength(total - FAN_OUT_BACKLOG);
    await turn();
    expect(log).toHaveLength(total - FAN_OUT_BACKLOG + FAN_OUT_CHUNK);
    for (let i = 0; i < FAN_OUT_BACKLOG / FAN_OUT_CHUNK; i++) await turn();
    expect(log).toHaveLength(total);
  });

  it('reports a listener that throws and goes on with the others', async () => {
    const { log, errors, live, listeners, queue } = setUp(FAN_OUT_CHUNK);
    const boom = new Error('boom');
    const throwing: Listener = () => {
      throw boom;
    };
    live.add(throwing);
    listeners.splice(1, 0, throwing);
    queue.push(event(1), listeners);
    for (let i = 0; i < 2; i++) await turn();
    expect(errors).toEqual([boom]);
    expect(log).toHaveLength(FAN_OUT_CHUNK);
  });

  it('hands nothing out once closed', async () => {
    const { log, listeners, queue } = setUp(2 * FAN_OUT_CHUNK);
    queue.push(event(1), listeners);
    queue.close();
    await turn();
    queue.push(event(2), listeners);
    expect(log).toHaveLength(FAN_OUT_CHUNK);
  });
});
