import { isDeepStrictEqual } from 'node:util';
import type { PlanHubServer } from '@planhub/server';
import { createMemoryStore, createServer } from '@planhub/server';
import type { CallAck } from '@planhub/shared';
import { CallAckSchema, TOOL_NAMES } from '@planhub/shared';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rounds } from '../helpers/stress.ts';
import { seedAgent } from './support/fixture.ts';
import { brief, checkProperty, hostileValue, prototypeBaseline } from './support/hostile.ts';
import { openAuth, rawClient, type RawClient } from './support/raw-client.ts';
import { recordingStore, type RecordingStore } from './support/recording-store.ts';

/**
 * Frames no SDK would send: non-object calls, extra arguments, missing acknowledgements, binary attachments, unknown
 * events, and below socket.io, hand-written (often malformed) packets. The node must answer every acknowledged call
 * with a well-formed CallAck, change nothing on a refusal, drop a broken connection rather than itself, and keep
 * serving everyone else.
 */

const CASES = rounds(1000);
const PACKET_CASES = rounds(300);
const WS = 'frames';
const PAYLOAD_BYTES = 256 * 1024;

let rec: RecordingStore;
let server: PlanHubServer;
let url: string;
let canary: RawClient;
const baseline = prototypeBaseline();

beforeAll(async () => {
  rec = recordingStore(createMemoryStore({ eventRetention: 2000 }));
  server = createServer(
    {
      port: 0,
      logLevel: 'silent',
      approvalPolicy: 'auto',
      limits: { callsPerSecond: 10_000_000, payloadBytes: PAYLOAD_BYTES },
    },
    { store: rec.store },
  );
  ({ url } = await server.listen());
  canary = await rawClient(url, openAuth('canary', 'canary'));
});
afterAll(async () => {
  canary.close();
  await server.close();
});

const problemWith = (answer: unknown): string | undefined => {
  const parsed = CallAckSchema.safeParse(answer);
  if (!parsed.success) return `malformed answer ${brief(answer)}`;
  if (!parsed.data.ok && parsed.data.error.code === 'INTERNAL') return `INTERNAL for ${brief(answer)}`;
  return undefined;
};

const expectServing = async () => {
  const ack = await canary.call('listTools', { dialect: '000' });
  expect(ack.ok).toBe(true);
  expect(prototypeBaseline()).toEqual(baseline);
};

/** A call frame that is wrong in some way: its shape, its tool name, or its arguments' type. */
const wrongCall = fc.oneof(
  hostileValue(['tool', 'args', 'request_id']),
  fc.record({ tool: hostileValue([]), args: hostileValue([]) }, { requiredKeys: [] }),
  fc.record({
    tool: fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '', ' ', 'x'.repeat(65)),
    args: fc.constant({}),
  }),
  fc.record({ tool: fc.constantFrom(...TOOL_NAMES), args: hostileValue([]), request_id: hostileValue([]) }),
  fc.record({
    tool: fc.constantFrom(...TOOL_NAMES),
    args: fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'prototype'), fc.jsonValue({ maxDepth: 2 })),
  }),
);

type Shape = 'ack' | 'extra-args' | 'only-ack' | 'no-ack' | 'other-event';
const shape = fc.constantFrom<Shape>('ack', 'ack', 'ack', 'extra-args', 'only-ack', 'no-ack', 'other-event');

describe('raw socket.io frames', () => {
  it(`answers ${CASES} malformed call frames well-formed, changing nothing, and keeps serving`, async () => {
    let client = await rawClient(url, openAuth(WS, 'framer'));
    await seedAgent(client, 'FRAMES');
    let current = await rec.snapshot(WS);
    let answered = 0;
    const ran = await checkProperty(
      fc.asyncProperty(shape, wrongCall, fc.array(hostileValue([]), { maxLength: 3 }), async (kind, frame, extra) => {
        if (!client.socket.connected) client = await rawClient(url, openAuth(WS, 'framer'));
        const commitsBefore = rec.commits(WS);
        if (kind === 'no-ack' || kind === 'other-event') {
          // Nothing to answer; the connection must stay usable.
          client.socket.emit(kind === 'no-ack' ? 'call' : 'subscribe', frame, ...extra);
          const next = await client.call('listTools', { dialect: '004' });
          if (!next.ok) throw new Error(`follow-up call failed: ${brief(next)}`);
          return;
        }
        const answer =
          kind === 'only-ack' ? await client.send() : await client.send(frame, ...(kind === 'extra-args' ? extra : []));
        answered += 1;
        const problem = problemWith(answer);
        if (problem) throw new Error(problem);
        if ((answer as CallAck).ok) current = await rec.snapshot(WS);
        else if (rec.commits(WS) !== commitsBefore) throw new Error(`a refused frame committed: ${brief(frame)}`);
      }),
      CASES,
    );
    expect(ran).toBe(CASES);
    expect(answered).toBeGreaterThan(CASES / 3);
    expect(await rec.snapshot(WS)).toEqual(current);
    client.close();
    await expectServing();
  });

  it('drops only the connection that sends a frame over the size limit', async () => {
    const big = await rawClient(url, openAuth(WS, 'big'));
    const closed = new Promise<string>((resolve) => big.socket.once('disconnect', (reason) => resolve(reason)));
    big.socket.emit('call', { tool: 'createPlan', args: { title: 'x'.repeat(PAYLOAD_BYTES * 2) } }, () => {});
    expect(await closed).toMatch(/transport (close|error)/);
    await expectServing();
  });
});

/**
 * What a client can put on the wire below socket.io: engine.io "message" packets holding socket.io packets. Raw calls
 * use acknowledgement id 987654321, far from the ids the client itself assigns, so answers are not mixed up.
 */
const DEEP = 60_000;
const CRAFTED: string[] = [
  '',
  '2',
  '2[',
  '2["call"',
  '2[]',
  '2{}',
  '2"call"',
  '2[1,2,3]',
  '2["call",{"tool":"listTools"}]',
  '2999999999999999999999["call",{}]',
  '2987654321["call",{"tool":"listTools","args":{"__proto__":{"polluted":true}}}]',
  '2987654321["call",{"tool":"__proto__","args":{}}]',
  '2987654321["call",{"tool":"listTools","args":{"constructor":{"prototype":{"polluted":true}}}}]',
  '2987654321["call",{"tool":"createPlan","args":{"title":"\\ud800","steps":["\\udfff"]}}]',
  `2987654321["call",${'['.repeat(DEEP)}${']'.repeat(DEEP)}]`,
  `2987654321["call",{"tool":"listTools","args":{"a":${'{"a":'.repeat(DEEP / 5)}1${'}'.repeat(DEEP / 5)}}}]`,
  // Binary event packets whose attachments never come, or name attachments that do not exist.
  '51-["call",{"_placeholder":true,"num":0}]',
  '51-["call",{"_placeholder":true,"num":7}]',
  '5-1["call",{"_placeholder":true,"num":0}]',
  '50-["call",{"_placeholder":true,"num":0}]',
  '3["call"]',
  '31[]',
  '0',
  '0{"token":1}',
  '1',
  '4"boom"',
  '6',
  '9',
  '2/nsp,["call",{}]',
  '2/admin,1["call",{"tool":"listTools"}]',
];

const randomPacket = fc.tuple(
  fc.constantFrom('0', '1', '2', '2987654321', '3', '4', '5', '51-', '6', '2/x,', '2987654321["call",', '2["call",{'),
  fc.oneof(fc.string({ maxLength: 80 }), fc.json({ maxDepth: 3 })),
);

describe('raw socket.io packets', () => {
  it(`survives ${CRAFTED.length} crafted and ${PACKET_CASES} random packets, answering the well-formed ones`, async () => {
    let client = await rawClient(url, openAuth(WS, 'packets'));
    const answers: string[] = [];
    const ensure = async () => {
      if (client.socket.connected) return;
      client = await rawClient(url, openAuth(WS, 'packets'));
    };
    const send = async (packet: string, withBinary = false) => {
      await ensure();
      const engine = client.socket.io.engine;
      const gone = new Promise<void>((resolve) => client.socket.once('disconnect', () => resolve()));
      const seen: string[] = [];
      const onMessage = (data: unknown) => {
        if (typeof data === 'string' && data.startsWith('3')) seen.push(data);
      };
      engine.on('message', onMessage);
      engine.write(packet);
      if (withBinary) engine.write(Buffer.from([1, 2, 3]));
      if (packet.startsWith('1')) {
        // A DISCONNECT packet: the server leaves the namespace without telling this client, which it asked for.
        engine.off('message', onMessage);
        client.close();
        return 'dropped';
      }
      // Either the connection is dropped, or a follow-up call on it is answered (packets are handled in order).
      const outcome = await Promise.race([gone.then(() => 'dropped'), client.call('listTools', { dialect: '001' })]);
      engine.off('message', onMessage);
      answers.push(...seen);
      return outcome;
    };

    for (const packet of CRAFTED) {
      const outcome = await send(packet);
      if (outcome !== 'dropped')
        expect((outcome as CallAck).ok, `${packet.slice(0, 60)} → ${brief(outcome)}`).toBe(true);
    }
    await send('51-["call",{"_placeholder":true,"num":0}]', true);

    const ran = await checkProperty(
      fc.asyncProperty(randomPacket, async ([head, body]) => {
        await send(head + body);
      }),
      PACKET_CASES,
    );
    expect(ran).toBe(PACKET_CASES);
    client.close();

    // The acknowledged packets that reached dispatch were answered with a well-formed CallAck (`3<id>[answer]`).
    const acks = answers.map((a) => /^3\d+(\[.*\])$/s.exec(a)?.[1]).filter((a): a is string => a !== undefined);
    expect(acks.length).toBeGreaterThan(3);
    // The deep nestings are refused by the depth limit, the prototype names as unknown tools.
    expect(acks.filter((a) => a.includes('"RESOURCE_EXHAUSTED"') && a.includes('nested more than'))).toHaveLength(2);
    expect(acks.some((a) => a.includes('Unknown tool \\"__proto__\\"'))).toBe(true);
    for (const raw of acks) {
      const [answer] = JSON.parse(raw) as unknown[];
      expect(problemWith(answer), raw.slice(0, 200)).toBeUndefined();
    }
    expect(isDeepStrictEqual(prototypeBaseline(), baseline)).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await expectServing();
  });
});
