import type { PlanHubServer, ServerConfigInput } from '@planhub/server';
import { createServer } from '@planhub/server';
import type { CallAck, NewEvent } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { bigEvent } from '../helpers/big-event.ts';
import { openAuth, rawClient, type RawClient } from './support/raw-client.ts';

/** 60 units per 60-second window: everything below ends well inside one window, so the count is exact. */
const LIMITS = { callsPerSecond: 1, rateWindowSeconds: 60 } as const;
const LOGGED = 2_500;

/** A small step_added event: bigEvent without its 100 KB result. */
const filler = (n: number): NewEvent =>
  bigEvent(n, { event_type: 'step_added', source_agent: 'someone', source_plan_title: 'filler', payload: {} });

/** A getTaskEvents filter that matches nothing looks at many log entries; that work is charged to the caller. */
describe('scan work charged to the call budget', () => {
  let node: PlanHubServer | undefined;
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await node?.close();
  });

  it('refuses an agent sooner when its getTaskEvents calls scan the whole budget than when they scan little', async () => {
    node = createServer({ port: 0, logLevel: 'silent', limits: LIMITS });
    const { url } = await node.listen();
    const outcome = await node.services.store.commit('ws', {
      reads: [],
      writes: [],
      events: Array.from({ length: LOGGED }, (_, i) => filler(i)),
    });
    expect(outcome.ok).toBe(true);
    const [scanner, reader] = [
      await rawClient(url, openAuth('ws', 'scanner')),
      await rawClient(url, openAuth('ws', 'reader')),
    ];
    clients.push(scanner, reader);
    const code = (ack: CallAck) => (ack.ok ? 'ok' : ack.error.code);

    // Nothing matches: each call looks at 2,000 entries, 1 + 20 units.
    const nothing = { event_types: ['plan_completed'], limit: 10 };
    const first = await scanner.call('getTaskEvents', nothing);
    expect(first).toMatchObject({ ok: true, result: { count: 0, scanned: 2_000 } });
    expect(code(await scanner.call('getTaskEvents', nothing))).toBe('ok');
    expect(code(await scanner.call('getTaskEvents', nothing))).toBe('ok');
    // 63 units used of 60: the next call, however cheap, waits for the window.
    const refused = await scanner.call('getPlanStatus', {});
    expect(refused).toMatchObject({ ok: false, error: { code: 'RESOURCE_EXHAUSTED', details: { limit: 60 } } });

    // The newest events, found at once: each call costs 1 unit, so the same number of calls leaves room.
    const newest = { event_types: ['step_added'], limit: 10 };
    for (let i = 0; i < 3; i++)
      expect(await reader.call('getTaskEvents', newest)).toMatchObject({ ok: true, result: { count: 10 } });
    expect(code(await reader.call('getTaskEvents', newest))).toBe('ok');
  });

  /** A node whose workspace 'ws' holds `count` events of about 100 KB, and an agent there to search them. */
  const searcherOver = async (count: number, limits: ServerConfigInput['limits']) => {
    node = createServer({ port: 0, logLevel: 'silent', limits });
    const { url } = await node.listen();
    const outcome = await node.services.store.commit('ws', {
      reads: [],
      writes: [],
      events: Array.from({ length: count }, (_, i) => bigEvent(i)),
    });
    expect(outcome.ok).toBe(true);
    const searcher = await rawClient(url, openAuth('ws', 'searcher'));
    clients.push(searcher);
    return searcher;
  };

  it('charges a text search by the payload bytes it read, not only by the entries', async () => {
    // 40 events of about 100 KB: 4 MB of payload text for a scan of 40 entries (under one unit by entries).
    const searcher = await searcherOver(40, LIMITS);
    const search = { text: 'no-such-word', limit: 500, after_event: '0-0' };
    // About 4 MB read: 1 + 244 units, far past the window's 60, so the next call waits for the window.
    expect(await searcher.call('getTaskEvents', search)).toMatchObject({ ok: true, result: { count: 0 } });
    expect(await searcher.call('getPlanStatus', {})).toMatchObject({
      ok: false,
      error: { code: 'RESOURCE_EXHAUSTED', details: { limit: 60 } },
    });
  });

  it('stops a text search at 4 MiB of payload and answers where to continue', async () => {
    // About 6 MB of payload text, and a budget the two searches (about 257 units each) fit in: what is tested is
    // where the first one stops.
    const searcher = await searcherOver(60, { callsPerSecond: 10_000 });
    const read = async (after: string) => {
      const ack = await searcher.call('getTaskEvents', { text: 'step_59', limit: 500, after_event: after });
      if (!ack.ok) throw new Error(ack.error.message);
      return ack.result as {
        count: number;
        scanned: number;
        cursor: string;
        events: Array<{ source_step_id: string }>;
      };
    };
    const first = await read('0-0');
    // 4 MiB of 100 KB payloads: 42 of them, then the cursor.
    expect(first).toMatchObject({ count: 0, scanned: 42 });
    const rest = await read(first.cursor);
    expect(rest.events.map((e) => e.source_step_id)).toEqual(['step_59']);
  });
});
