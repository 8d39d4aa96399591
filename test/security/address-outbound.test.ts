import type { EventEnvelope } from '@planhub/shared';
import type { Socket } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { metric } from '../helpers/metrics.ts';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { bigTodos, stalledSubscriber } from '../helpers/stalled-subscriber.ts';

const MIB = 1024 * 1024;
/** Far above what any one subscriber here queues: only the address's total can cut them. */
const PER_CONNECTION = 64 * MIB;
const PER_ADDRESS = 4 * MIB;
const PAUSED = 10;
const WRITES = 40;

/**
 * One address holding many connections that stopped reading: each stays under its own outboundBytes, so until
 * outboundBytesPerAddress only connectionsPerAddress × outboundBytes bounded what the node queued for that address
 * (300 such connections took a node from 126 MB to 1,763 MB).
 */
describe('what a node queues for one client address', () => {
  let h: Harness | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.close();
    await h?.close();
  });

  it('stays within outboundBytesPerAddress: the paused connections are cut, a reader there is not', async () => {
    h = await startHarness('memory', {
      limits: {
        outboundBytes: PER_CONNECTION,
        outboundBytesPerAddress: PER_ADDRESS,
        callsPerSecond: 100_000,
        callsPerAddressPerSecond: 1_000_000,
      },
    });
    const { url } = h;
    const paused: Awaited<ReturnType<typeof stalledSubscriber>>[] = [];
    for (let i = 0; i < PAUSED; i++) {
      const subscriber = await stalledSubscriber(url, `paused-${i}`, { afterEvent: '$' });
      sockets.push(subscriber.socket);
      paused.push(subscriber);
    }
    // A subscriber from the same address that reads everything it is sent.
    const reader = await h.client('reader');
    const seen: EventEnvelope[] = [];
    let dropped = false;
    reader.on('event', (event) => seen.push(event));
    reader.on('state', (state) => void (state === 'disconnected' && (dropped = true)));
    await reader.subscribeToTasks({ event_types: ['todos_updated'], after_event: '$' });
    const writer = await h.client('writer');
    for (let round = 1; round <= WRITES; round++) await writer.call('todo_write', { todos: bigTodos(round) });

    await eventually(() => expect(seen.filter((e) => e.event_type === 'todos_updated')).toHaveLength(WRITES));
    expect(dropped).toBe(false);
    // Every paused connection past its share is cut; what the node counted for the address never passed the limit
    // by more than one event (about 200 KB) in flight.
    const cuts = await metric(url, 'planhub_slow_consumers_cut_total');
    expect(cuts).toBeGreaterThanOrEqual(PAUSED - 2);
    expect(cuts).toBeLessThanOrEqual(PAUSED);
    expect(await metric(url, 'planhub_outbound_address_peak_bytes')).toBeLessThanOrEqual(PER_ADDRESS + 256 * 1024);
    for (const p of paused) p.resume();
    await eventually(() => {
      const told = paused.flatMap((p) => p.reasons);
      expect(told).toHaveLength(cuts);
      for (const reason of told) {
        expect(reason).toMatchObject({ code: 'RESOURCE_EXHAUSTED', reason: 'slow_consumer', limit_bytes: PER_ADDRESS });
        expect(reason.message).toMatch(/past the limit of 4194304 for one address \(outboundBytesPerAddress\)/);
      }
    });
  });
});
