import type { EventEnvelope } from '@planhub/shared';
import { EventIdSchema, compareEventIds } from '@planhub/shared';
import { describe, expect } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { STORE_FIXTURE_KINDS } from '../helpers/stores.ts';
import { WS, append, collect, event, storeTest } from './conformance-support.ts';

describe.each(STORE_FIXTURE_KINDS)('the %s store', (kind) => {
  const it = storeTest(kind);

  describe('the event log', () => {
    it('gives events strictly increasing <ms>-<seq> ids and returns the envelopes it stored', async ({ store }) => {
      const committed = [
        ...(await append(store, [event(1), event(2), event(3)])),
        ...(await append(store, [event(4)])),
      ];
      expect(committed.map((e) => e.source_step_sequence)).toEqual([1, 2, 3, 4]);
      for (const e of committed) expect(EventIdSchema.safeParse(e.event_id).success).toBe(true);
      for (let i = 1; i < committed.length; i++)
        expect(compareEventIds(committed[i]!.event_id, committed[i - 1]!.event_id)).toBeGreaterThan(0);
      expect(committed[0]).toEqual({ event_id: committed[0]!.event_id, ...event(1) });
      expect(await store.readEvents(WS, { count: 10 })).toEqual(committed);
    });

    it('reads after a cursor (exclusive) and the newest N oldest first', async ({ store }) => {
      const all = await append(
        store,
        Array.from({ length: 8 }, (_, i) => event(i + 1)),
      );
      expect(await store.readEvents(WS, { after: all[2]!.event_id, count: 3 })).toEqual(all.slice(3, 6));
      expect(await store.readEvents(WS, { after: all[7]!.event_id, count: 3 })).toEqual([]);
      expect(await store.readEvents(WS, { after: '0-0', count: 100 })).toEqual(all);
      expect(await store.readEvents(WS, { count: 3 })).toEqual(all.slice(5));
      expect(await store.readEvents('ws-empty', { count: 3 })).toEqual([]);
      expect(await store.readEvents('ws-empty', { after: '0-0', count: 3 })).toEqual([]);
    });

    it('answers an empty or whole page, never an error, for cursors at the ends of the id range', async ({ store }) => {
      const all = await append(store, [event(1), event(2)]);
      const max = '18446744073709551615';
      for (const after of [`${max}-${max}`, '99999999999999999999999-0', `${max}-99999999999999999999999`])
        expect(await store.readEvents(WS, { after, count: 10 })).toEqual([]);
      expect(await store.readEvents(WS, { before: '0-0', count: 10 })).toEqual([]);
      expect(await store.readEvents(WS, { before: '00-000', count: 10 })).toEqual([]);
      for (const before of [`${max}-${max}`, '99999999999999999999999-0', `${max}-99999999999999999999999`])
        expect(await store.readEvents(WS, { before, count: 10 })).toEqual(all);
      const [first] = all;
      const [ms] = first!.event_id.split('-');
      expect(await store.readEvents(WS, { after: `${ms}-99999999999999999999999`, count: 10 })).toEqual(
        all.filter((e) => e.event_id.split('-')[0] !== ms),
      );
    });

    it('trims the log to its retention, keeping at least the newest events', async ({ fixture }) => {
      const small = fixture.open({ eventRetention: 10 });
      const committed: EventEnvelope[] = [];
      // 300 events: enough for Redis' approximate MAXLEN ~ to drop whole stream nodes (100 entries each).
      for (let batch = 0; batch < 30; batch++)
        committed.push(
          ...(await append(
            small,
            Array.from({ length: 10 }, (_, i) => event(batch * 10 + i)),
          )),
        );
      const kept = await small.readEvents(WS, { after: '0-0', count: 1000 });
      expect(kept.length).toBeGreaterThanOrEqual(10);
      expect(kept.length).toBeLessThan(300);
      expect(kept).toEqual(committed.slice(-kept.length));
      expect(await small.readEvents(WS, { count: 10 })).toEqual(committed.slice(-10));
    });

    it('reads and trims the log of a workspace whatever the length of its name', async ({ fixture }) => {
      const small = fixture.open({ eventRetention: 10 });
      // Names of up to 128 characters are allowed; 31 to 62 once made the file store's log read as empty.
      for (const length of [1, 30, 31, 36, 62, 63, 64, 128]) {
        const workspace = `w${'x'.repeat(length - 1)}`;
        const committed: EventEnvelope[] = [];
        for (let n = 0; n < 12; n++) committed.push(...(await append(small, [event(n, workspace)], workspace)));
        expect(
          (await small.readEvents(workspace, { count: 3 })).map((e) => e.event_id),
          `newest, ${length}`,
        ).toEqual(committed.slice(-3).map((e) => e.event_id));
        const before = committed[9]!.event_id;
        expect(await small.readEvents(workspace, { before, count: 2 }), `before, ${length}`).toEqual(
          committed.slice(7, 9),
        );
        expect(await small.readEvents(workspace, { after: '0-0', count: 100 }), `trimmed, ${length}`).toEqual(
          committed.slice(-10),
        );
      }
    });

    it('pushes every committed event to watch listeners in log order', async ({ store }) => {
      const { seen, off } = collect(store);
      const committed: EventEnvelope[] = [];
      for (let i = 0; i < 10; i++) committed.push(...(await append(store, [event(2 * i), event(2 * i + 1)])));
      await poll(() => seen.length).toBe(20);
      expect(seen).toEqual(committed);
      off();
      const { seen: later } = collect(store);
      const [last] = await append(store, [event(100)]);
      await poll(() => later.at(-1)).toEqual(last);
      expect(seen).toHaveLength(20);
    });
  });
});
