import type { CallAck } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import type { RawClient } from './support/raw-client.ts';
import { serverFixture } from './support/server-fixture.ts';

/**
 * A socket.io frame whose payload JSON.parse cannot read (NaN and Infinity, which Python's json.dumps writes by
 * default and python-socketio sends) was thrown out of socket.io-parser: the connection closed and the call waited
 * out its client's timeout with no word of why. Such a call is now answered INVALID_ARGUMENT by its ack id.
 */
describe('a call frame that is not JSON', () => {
  const fixture = serverFixture({ approvalPolicy: 'auto' });
  const connect = async () => fixture.join(await fixture.node(), 'ws', 'nan');

  /** Writes a socket.io packet as is and collects the ACK packets (`3<id>[…]`) the node sends back. */
  const sendRaw = (c: RawClient, packet: string) => {
    const acks: string[] = [];
    c.socket.io.engine.on('message', (data: unknown) => void (String(data).startsWith('3') && acks.push(String(data))));
    c.socket.io.engine.write(packet);
    return acks;
  };
  const answerOf = (ack: string | undefined, id: number): CallAck => {
    expect(ack?.startsWith(`3${id}[`)).toBe(true);
    return (JSON.parse(ack?.slice(`3${id}`.length) ?? '[]') as CallAck[])[0] as CallAck;
  };

  it.each([
    ['NaN', '{"limit":NaN}'],
    ['Infinity', '{"limit":Infinity}'],
    ['-Infinity in an output', '{"step_id":"step_1","output":{"x":-Infinity}}'],
    ['a cut-off frame', '{"limit":1'],
  ])('answers %s with INVALID_ARGUMENT naming the cause, and keeps the connection', async (_, args) => {
    const c = await connect();
    const acks = sendRaw(c, `27["call",{"tool":"getTaskEvents","args":${args}}]`);
    await expect.poll(() => acks).toHaveLength(1);
    const answer = answerOf(acks[0], 7);
    expect(answer.ok).toBe(false);
    expect(!answer.ok && answer.error.code).toBe('INVALID_ARGUMENT');
    expect(!answer.ok && answer.error.message).toMatch(/^The call is not valid JSON \(.+\)\. NaN, Infinity and/);
    expect(!answer.ok && answer.error.message).toContain('allow_nan=False');
    expect(c.socket.connected).toBe(true);
    expect((await c.call('listTools', {})).ok).toBe(true);
  });

  it('drops such an event without an ack id, and keeps the connection', async () => {
    const c = await connect();
    const acks = sendRaw(c, '2["call",{"tool":"getTaskEvents","args":{"limit":NaN}}]');
    expect((await c.call('listTools', {})).ok).toBe(true);
    expect(acks.filter((a) => !a.startsWith('30['))).toEqual([]);
    expect(c.socket.connected).toBe(true);
  });

  it('answers it in a binary event too, once its attachment came', async () => {
    const c = await connect();
    const acks = sendRaw(
      c,
      '51-9["call",{"tool":"getTaskEvents","args":{"limit":NaN,"b":{"_placeholder":true,"num":0}}}]',
    );
    c.socket.io.engine.write(Buffer.from([1, 2, 3]));
    await expect.poll(() => acks).toHaveLength(1);
    const answer = answerOf(acks[0], 9);
    expect(!answer.ok && answer.error.code).toBe('INVALID_ARGUMENT');
    expect(c.socket.connected).toBe(true);
  });

  it('still closes the connection on another packet type that is not JSON', async () => {
    const c = await connect();
    const gone = new Promise<string>((resolve) => c.socket.once('disconnect', resolve));
    c.socket.io.engine.write('31[NaN]');
    expect(await gone).toBe('transport close');
  });
});
