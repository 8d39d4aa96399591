import { io, type Socket } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import { bigEvent } from '../helpers/big-event.ts';
import { eventually } from '../helpers/eventually.ts';
import { metric } from '../helpers/metrics.ts';
import { startHarness, type Harness } from '../helpers/servers.ts';

const MIB = 1024 * 1024;

/**
 * A client that keeps calling and never reads the answers: each getTaskEvents page here is about 3 MB, and the node
 * used to queue every one of them, however many, since only pushed events counted against outboundBytes.
 */
describe('answers of many large events', () => {
  let h: Harness | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.close();
    await h?.close();
  });

  it('end a page of events at about 1 MiB, and the cursors read on from where it ended', async () => {
    // The pages' bytes are charged to the reader (answer-cost.ts): 60 pages of a MiB are past its default budget.
    h = await startHarness('memory', { limits: { callsPerSecond: 100_000 } });
    const { store } = h.server.services;
    const committed: string[] = [];
    for (let n = 1; n <= 30; n++) {
      const outcome = await store.commit('ws', { reads: [], writes: [], events: [bigEvent(n)] });
      if (outcome.ok) committed.push(...outcome.events.map((e) => e.event_id));
    }
    const reader = await h.client('reader');
    const forward: string[] = [];
    for (let after = '0-0'; forward.length < committed.length;) {
      const page = await reader.getTaskEvents({ after_event: after, limit: 500 });
      expect(page.count).toBeGreaterThan(0);
      expect(page.count).toBeLessThanOrEqual(10);
      forward.push(...page.events.map((e) => e.event_id));
      after = page.last_event_id ?? after;
    }
    expect(forward).toEqual(committed);
    const backward: string[] = [];
    for (let before: string | undefined; backward.length < committed.length;) {
      const page = await reader.getTaskEvents({
        limit: 500,
        ...(before !== undefined ? { before_event: before } : {}),
      });
      expect(page.count).toBeLessThanOrEqual(10);
      backward.unshift(...page.events.map((e) => e.event_id));
      before = page.next_before ?? undefined;
      if (before === undefined) break;
    }
    expect(backward).toEqual(committed);
  });

  it('cut the connection as a slow consumer once past outboundBytes, and the client is told why', async () => {
    h = await startHarness('memory', {
      limits: { outboundBytes: MIB, callsPerSecond: 100_000, callsPerAddressPerSecond: 1_000_000 },
    });
    const { url } = h;
    const { store } = h.server.services;
    for (let n = 1; n <= 30; n++)
      expect(await store.commit('ws', { reads: [], writes: [], events: [bigEvent(n)] })).toMatchObject({ ok: true });
    const socket = io(url, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      auth: { workspace: 'ws', agent_id: 'reader', role: 'agent' },
    });
    sockets.push(socket);
    const reasons: unknown[] = [];
    socket.on('disconnect_reason', (reason: unknown) => reasons.push(reason));
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('connect_error', reject);
    });
    const tcp = (socket.io.engine.transport as unknown as { ws: { _socket: { pause(): void; resume(): void } } }).ws
      ._socket;
    tcp.pause();
    for (let i = 0; i < 20; i++)
      socket.emit('call', { tool: 'getTaskEvents', args: { after_event: '0-0', limit: 500 } }, () => undefined);
    // The node cuts the connection while the client still reads nothing: its reason waits in the socket till then.
    await eventually(async () => expect(await metric(url, 'planhub_slow_consumers_cut_total')).toBe(1));
    tcp.resume();
    await eventually(() =>
      expect(reasons).toEqual([expect.objectContaining({ code: 'RESOURCE_EXHAUSTED', reason: 'slow_consumer' })]),
    );
  });
});
