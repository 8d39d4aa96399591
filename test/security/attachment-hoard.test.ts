import { Manager } from 'socket.io-client';
import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { serverFixture } from './support/server-fixture.ts';

/** Under the default payloadBytes (1 MiB) each, as the transport lets every message through. */
const ATTACHMENT = 700_000;

/**
 * A binary packet announces its attachments, and socket.io's parser holds them until the last one arrives. The
 * transport caps each message, not their sum: a packet announcing 10 attachments and never sending the last held
 * 9 MiB per connection, uncharged, and before any authentication (300 such connections held 2.7 GB in review).
 */
describe('a binary packet whose attachments never end', () => {
  const { node, join } = serverFixture();

  it('closes the connection once its attachments pass payloadBytes, and serves the next call of another', async () => {
    const url = await node();
    const hoarder = await join(url, 'ws', 'hoarder');
    const engine = hoarder.socket.io.engine;
    let closed: string | undefined;
    engine.on('close', (reason: string) => (closed = reason));
    // BINARY_EVENT (5) with 10 attachments, only two of which are sent.
    engine.write('510-["call",{"_placeholder":true,"num":0}]');
    engine.write(Buffer.alloc(ATTACHMENT, 1));
    engine.write(Buffer.alloc(ATTACHMENT, 2));
    await eventually(() => expect(closed).toBeDefined());

    const other = await join(url, 'ws', 'bystander');
    expect(await other.call('getPlanStatus', {})).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });

  it('still serves a call whose one attachment is under payloadBytes', async () => {
    const url = await node();
    const sender = await join(url, 'ws', 'sender');
    const answer = await sender.call('getPlanStatus', { plan_id: 'p', note: Buffer.alloc(ATTACHMENT, 1) });
    expect(answer).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(sender.socket.connected).toBe(true);
  });

  it('closes a connection that starts a binary packet before any namespace admitted it', async () => {
    const url = await node();
    // The transport alone, with no CONNECT: what a client without a token (or from a page of another site) has.
    const manager = new Manager(url, { transports: ['websocket'], reconnection: false, autoConnect: false });
    await new Promise<void>((resolve, reject) => manager.open((err) => (err ? reject(err) : resolve())));
    const engine = manager.engine;
    const sent = performance.now();
    let closedAt: number | undefined;
    engine.on('close', () => (closedAt = performance.now()));
    // Two attachments announced, one sent: the parser held it until the node's connectTimeout (10 s) ended the
    // connection, a megabyte a connection for every client that never authenticates; now the packet ends it.
    engine.write('52-["call",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]');
    engine.write(Buffer.alloc(1000, 1));
    await eventually(() => expect(closedAt).toBeDefined());
    // Well before the connectTimeout that closed it before, whatever the machine's load.
    expect((closedAt ?? Infinity) - sent).toBeLessThan(5000);
  });
});
