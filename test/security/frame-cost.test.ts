import { describe, expect, it } from 'vitest';
import { serverFixture } from './support/server-fixture.ts';

/** 100 units per address per 10 s window; a call costs 1 plus 1 per 16 KiB of what it sent. */
const LIMITS = { callsPerAddressPerSecond: 10, rateWindowSeconds: 10 } as const;
/** 37 units a call: the third of them is past the address's 100. */
const BIG = 600_000;

/**
 * A call is charged by everything its frame carried, whatever its shape: binary attachments, and a frame whose
 * argument is not an object, used to cost one unit whatever their size.
 */
describe('what a call costs its address', () => {
  const { node, join } = serverFixture({ limits: LIMITS });
  const client = async () => join(await node(), 'ws', 'big-sender');
  type Answer = { ok: boolean; error?: { code: string; message: string } };
  /** Three calls one after another; each answer as "ok" or "CODE: the message's first clause". */
  const codes = async (send: () => Promise<unknown>) => {
    const answers: Answer[] = [];
    for (let i = 0; i < 3; i++) answers.push((await send()) as Answer);
    return answers.map((a) => (a.ok ? 'ok' : `${a.error?.code}: ${a.error?.message.split(':')[0]}`));
  };

  it('charges binary attachments by their bytes', async () => {
    const c = await client();
    const answers = await codes(() => c.call('getPlanStatus', { plan_id: 'p', note: Buffer.alloc(BIG, 1) }));
    expect(answers[2]).toMatch(/^RESOURCE_EXHAUSTED: Too many calls from /);
    for (const answer of answers.slice(0, 2)) expect(answer).not.toMatch(/Too many calls/);
  });

  it('charges a call sent as one binary blob by its bytes', async () => {
    const c = await client();
    const answers = await codes(() => c.send(Buffer.alloc(BIG, 1)));
    expect(answers[2]).toMatch(/^RESOURCE_EXHAUSTED: Too many calls from /);
  });

  it('charges every attachment of the packet, whatever argument it rides with', async () => {
    for (const first of [Buffer.alloc(1, 1), 'x']) {
      const c = await client();
      const answers = await codes(() => c.send(first, Buffer.alloc(BIG, 1)));
      expect(answers[2], typeof first).toMatch(/^RESOURCE_EXHAUSTED: Too many calls from /);
    }
  });

  it('charges a call that is not an object by its frame, and still says what a call must be', async () => {
    const c = await client();
    const answers = await codes(() => c.send('x'.repeat(BIG)));
    for (const answer of answers.slice(0, 2)) expect(answer).toMatch(/^INVALID_ARGUMENT: /);
    expect(answers[2]).toMatch(/^RESOURCE_EXHAUSTED: Too many calls from /);
  });

  it('charges an event other than "call" by its frame too, though it is only refused', async () => {
    const c = await client();
    const answers = await codes(
      () =>
        new Promise((resolve) =>
          c.socket.emit('bogus', { tool: 'getPlanStatus', args: { note: 'x'.repeat(BIG) } }, resolve),
        ),
    );
    for (const answer of answers.slice(0, 2)) expect(answer).toMatch(/^INVALID_ARGUMENT: Unknown event "bogus"/);
    expect(answers[2]).toMatch(/^RESOURCE_EXHAUSTED: Too many calls from /);
  });

  it('answers an event named by a number, as socket.io allows, instead of leaving its ack waiting', async () => {
    const c = await client();
    const engine = c.socket.io.engine;
    const acks: string[] = [];
    engine.on('message', (data: unknown) => void (String(data).startsWith('37') && acks.push(String(data))));
    // An EVENT packet with ack id 7 whose event name is the number 5 (socket.io-parser accepts numeric names).
    engine.write('27[5,{}]');
    await expect.poll(() => acks).toHaveLength(1);
    const [answer] = JSON.parse(acks[0]?.slice(2) ?? '[]') as [
      { ok: boolean; error?: { code: string; message: string } },
    ];
    expect(answer.ok).toBe(false);
    expect(answer.error?.code).toBe('INVALID_ARGUMENT');
    expect(answer.error?.message).toMatch(/^Unknown event "5"/);
  });
});
