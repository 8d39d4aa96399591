import type { EventEnvelope } from '@planhub/shared';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventLog } from '../src/store/memory-event-log.ts';

const eventAt = (n: number): EventEnvelope =>
  ({
    // Ids as the store makes them: milliseconds, then a sequence within the millisecond.
    event_id: `${1_700_000_000_000 + Math.floor(n / 3)}-${n % 3}`,
    workspace: 'w',
    type: 'step_completed',
    at: '2026-01-01T00:00:00.000Z',
    payload: { n },
  }) as unknown as EventEnvelope;

/** A random history: each step appends events or drops the oldest ones. */
const moves = fc.array(
  fc.oneof(
    fc.record({ append: fc.integer({ min: 1, max: 900 }) }),
    fc.record({ drop: fc.integer({ min: 1, max: 1200 }) }),
  ),
  { minLength: 1, maxLength: 30 },
);

describe('the memory store’s event log', () => {
  it('keeps, counts and finds what a plain array of the same history does, across compactions', () => {
    fc.assert(
      fc.property(moves, fc.nat(), fc.integer({ min: 1, max: 300 }), (history, probe, count) => {
        const log = new EventLog();
        const model: EventEnvelope[] = [];
        let next = 0;
        let dropped = 0;
        for (const move of history) {
          if ('append' in move)
            for (let i = 0; i < move.append; i++) {
              const e = eventAt(next++);
              log.append(e, 10 + (next % 7));
              model.push(e);
            }
          else
            for (let i = 0; i < move.drop; i++) {
              const bytes = log.dropOldest();
              const gone = model.shift();
              expect(bytes).toBe(gone === undefined ? 0 : 10 + (((gone.payload as { n: number }).n + 1) % 7));
              if (gone) dropped += 1;
            }
        }
        expect(log.length).toBe(model.length);
        expect(log.bytes).toBe(model.reduce((sum, e) => sum + 10 + (((e.payload as { n: number }).n + 1) % 7), 0));
        expect(log.newest(count)).toEqual(model.slice(-count));
        // An id anywhere from before the first kept event to past the last one.
        const id = eventAt(Math.max(0, dropped - 2) + (probe % (model.length + 4))).event_id;
        const byId = (e: EventEnvelope) => e.event_id;
        const firstAfter = model.findIndex((e) => compare(e.event_id, id) > 0);
        const firstAtOrAfter = model.findIndex((e) => compare(e.event_id, id) >= 0);
        expect(log.after(id, count).map(byId)).toEqual(
          (firstAfter === -1 ? [] : model.slice(firstAfter, firstAfter + count)).map(byId),
        );
        const stop = firstAtOrAfter === -1 ? model.length : firstAtOrAfter;
        expect(log.before(id, count).map(byId)).toEqual(model.slice(Math.max(0, stop - count), stop).map(byId));
      }),
      { numRuns: 200, seed: 7 },
    );
  });

  it('answers nothing from an empty log', () => {
    const log = new EventLog();
    expect(log.dropOldest()).toBe(0);
    expect([log.length, log.bytes]).toEqual([0, 0]);
    expect(log.newest(5)).toEqual([]);
    expect(log.after('1-0', 5)).toEqual([]);
    expect(log.before('1-0', 5)).toEqual([]);
  });
});

const compare = (a: string, b: string) => {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am !== bm ? am - bm : as - bs;
};
