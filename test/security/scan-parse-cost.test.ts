import type { CallAck } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { bigEvent } from '../helpers/big-event.ts';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { openAuth, rawClient, type RawClient } from './support/raw-client.ts';

/**
 * Redis and the file store keep the log as text and parse each entry a scan looks at: 984 entries of 60 KiB took
 * 165 ms per getTaskEvents call on Redis for 10 units, and another workspace's p99 rose to 140–154 ms. A scan stops
 * after 8 MiB of parsed text and answers its cursor, and is charged 1 unit per 64 KiB of it.
 */
describe.each(['redis', 'file'] as const)('what a scan parses, bounded and charged (%s store)', (store) => {
  let h: Harness | undefined;
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await h?.close();
  });

  it('stops a scan that matches nothing after 8 MiB of parsed entries, and charges what it parsed', async () => {
    // 60 units per minute: one such scan (about 128 units) leaves nothing for the next call.
    h = await startHarness(store, { limits: { callsPerSecond: 1, rateWindowSeconds: 60 } });
    // 120 events of about 100 KB: 12 MB of log, past what one scan may parse.
    const outcome = await h.server.services.store.commit('ws', {
      reads: [],
      writes: [],
      events: Array.from({ length: 120 }, (_, i) => bigEvent(i)),
    });
    expect(outcome.ok).toBe(true);
    const scanner = await rawClient(h.url, openAuth('ws', 'scanner'));
    clients.push(scanner);
    const nothing = { event_types: ['plan_completed'], limit: 10, after_event: '0-0' };
    const first = (await scanner.call('getTaskEvents', nothing)) as CallAck & { result: { scanned: number } };
    expect(first).toMatchObject({ ok: true, result: { count: 0 } });
    // 8 MiB of entries of about 100 KB: 84 of them, not the whole log of 120 (and 2,000 entries were allowed).
    expect(first.result.scanned).toBeGreaterThan(80);
    expect(first.result.scanned).toBeLessThan(90);
    expect(await scanner.call('getPlanStatus', {})).toMatchObject({
      ok: false,
      error: { code: 'RESOURCE_EXHAUSTED', details: { limit: 60 } },
    });
  });

  /** 120 events of about 100 KB committed at once: 12 MB of log. */
  const bigLog = async () => {
    const outcome = await h!.server.services.store.commit('ws', {
      reads: [],
      writes: [],
      events: Array.from({ length: 120 }, (_, i) => bigEvent(i)),
    });
    expect(outcome.ok).toBe(true);
  };
  const refused = { ok: false, error: { code: 'RESOURCE_EXHAUSTED', details: { limit: 60 } } };

  it('charges what listSubscriptions parses to count matches, as a getTaskEvents scan', async () => {
    h = await startHarness(store, { limits: { callsPerSecond: 1, rateWindowSeconds: 60 } });
    const lister = await rawClient(h.url, openAuth('ws', 'lister'));
    clients.push(lister);
    // Live only: subscribing reads no history.
    const live = { event_types: ['plan_completed'], after_event: '$' };
    expect(await lister.call('subscribeToTasks', live)).toMatchObject({ ok: true });
    await bigLog();
    // Counting reads back to the subscription's creation: every one of the 120 (8 MiB of them, about 128 units).
    expect(await lister.call('listSubscriptions', {})).toMatchObject({ ok: true, result: { count: 1 } });
    expect(await lister.call('getPlanStatus', {})).toMatchObject(refused);
  });

  it("charges what a subscription's history replay parses, twice (found, then replayed)", async () => {
    h = await startHarness(store, { limits: { callsPerSecond: 1, rateWindowSeconds: 60 } });
    await bigLog();
    const subscriber = await rawClient(h.url, openAuth('ws', 'subscriber'));
    clients.push(subscriber);
    // No after_event: the recent matching history is looked for (none matches) within the scan's bounds.
    expect(await subscriber.call('subscribeToTasks', { event_types: ['plan_completed'] })).toMatchObject({ ok: true });
    expect(await subscriber.call('getPlanStatus', {})).toMatchObject(refused);
  });
});
