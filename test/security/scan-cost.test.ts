import type { PlanHubServer } from '@planhub/server';
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
});
