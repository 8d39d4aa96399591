import type { Packet } from 'socket.io-parser';
import { Decoder, Encoder, PacketType } from 'socket.io-parser';
import { scanJson, tooManyValues } from './json-scan.ts';

export interface FrameLimits {
  /** Keys plus array elements in one frame. */
  maxValues: number;
  /** Nesting of a call's arguments (the frame wraps them two levels deeper: ["call", { tool, args }]). */
  maxDepth: number;
  /** Bytes of one packet, its binary attachments included (each websocket message is held to it by the transport). */
  maxPacketBytes: number;
}

const FRAME_WRAPPING = 2;
/** A packet's text starts with its type: these are the ones whose attachments follow it. */
const BINARY_TYPES: ReadonlySet<string> = new Set([String(PacketType.BINARY_EVENT), String(PacketType.BINARY_ACK)]);

/**
 * What a "call" receives instead of its arguments when the frame was refused before dispatch: too large a shape
 * (RESOURCE_EXHAUSTED), an event the node does not serve, or a payload that is not JSON (INVALID_ARGUMENT).
 */
export class FrameRefusal {
  constructor(
    readonly message: string,
    /** Size of the refused frame (its attachments added as they come): still charged to the sender's address. */
    public bytes: number,
    readonly code: 'RESOURCE_EXHAUSTED' | 'INVALID_ARGUMENT' = 'RESOURCE_EXHAUSTED',
  ) {}
}

/** The refusal of an event other than "call": what the node serves, and how to send it. */
const unknownEvent = (event: string, bytes: number): FrameRefusal =>
  new FrameRefusal(
    `Unknown event ${JSON.stringify(event.slice(0, 64))}: this node answers only "call" events, ` +
      '{ tool, args, request_id? } with an acknowledgement (see docs/protocol.md).',
    bytes,
    'INVALID_ARGUMENT',
  );

/**
 * A call's first argument as the parser passes it on, with the size of everything its packet carried: the text
 * frame and, for a binary event, each attachment as it arrives. Whatever the argument's shape (an object, a
 * string, one blob), the call is charged by those bytes; dispatch sees `value`.
 */
export class FramedCall {
  constructor(
    public value: unknown,
    public bytes: number,
  ) {}
}

/** What dispatch gets of a call's first argument: the argument itself. */
export const callArgument = (raw: unknown): unknown => (raw instanceof FramedCall ? raw.value : raw);

/** Bytes (UTF-16 units of text read, plus the bytes of binary attachments) of the packet a call came in. */
export const frameSizeOf = (raw: unknown): number =>
  raw instanceof FrameRefusal || raw instanceof FramedCall ? raw.bytes : 0;

/** The byte length of one binary attachment as socket.io-parser receives it (a buffer, or base64 text). */
const attachmentBytes = (data: unknown): number => {
  if (ArrayBuffer.isView(data) || data instanceof ArrayBuffer) return data.byteLength;
  const base64 = (data as { data?: unknown } | null)?.data;
  return typeof base64 === 'string' ? base64.length : 0;
};

/**
 * The raw frame checked against the limits before JSON.parse (json-scan.ts): the refusal's words, or undefined. The
 * frame wraps a call's arguments two levels deeper than they are (["call", { tool, args }]).
 */
export const scanFrame = (text: string, limits: FrameLimits): string | undefined => {
  const excess = scanJson(text, { maxValues: limits.maxValues, maxDepth: limits.maxDepth + FRAME_WRAPPING });
  if (excess === 'depth') return `arguments is nested more than ${limits.maxDepth} levels deep; flatten it.`;
  if (excess === 'values') return tooManyValues('The call', limits.maxValues);
  return undefined;
};

/**
 * The refusal of an event whose payload is not JSON (INVALID_ARGUMENT): most often NaN or Infinity, which Python's
 * json.dumps writes by default (python-socketio uses it) and JSON.parse refuses. `reason` is JSON.parse's own words,
 * which point at the place.
 */
export const notJson = (reason: string): string =>
  `The call is not valid JSON (${reason.slice(0, 200)}). NaN, Infinity and -Infinity are not JSON: send a finite ` +
  "number, null or a string instead (Python's json.dumps writes them unless given allow_nan=False, which raises " +
  'where they are).';

/** JSON.parse's complaint about `text`, or undefined when it is JSON. */
const jsonError = (text: string): string | undefined => {
  try {
    JSON.parse(text);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
};

type DecodeString = (this: Decoder, text: string) => Packet;
/** socket.io-parser's own step from text to packet (a private method: pinned by the frame tests). */
const decodeString = (Decoder.prototype as unknown as { decodeString: DecodeString }).decodeString;

/**
 * A socket.io parser that checks every text frame before JSON.parse. A refused event (too large a shape, or a
 * payload JSON.parse cannot read), and an event of another name than "call", reaches the "call" handler with a FrameRefusal instead of its arguments (answered as an error if it
 * has an acknowledgement, dropped if not); any other refused packet closes the connection, as socket.io does with a
 * malformed one.
 */
export const guardedParser = (limits: FrameLimits) => {
  class GuardedDecoder extends Decoder {
    /** What the binary packet being put together is charged to: its attachments add to it as they arrive. */
    awaitingAttachments: FramedCall | FrameRefusal | undefined;

    /** Bytes of the packet being put together: its text, then each attachment as it arrives. */
    packetBytes = 0;
    /** Set once a namespace admitted the connection (admitDecoder): only then may it send binary packets. */
    admitted = false;

    override add(obj: unknown): void {
      if (typeof obj === 'string') this.packetBytes = obj.length;
      else {
        this.packetBytes += attachmentBytes(obj);
        // The parser holds a binary packet's attachments until the last one arrives, and the transport caps each
        // message, not their sum: a packet announcing 10 attachments and never sending the last held 9 MiB per
        // connection, before any authentication (the parser runs before the namespace's CONNECT is checked). A
        // throw here closes the connection, as a malformed packet does.
        if (this.packetBytes > limits.maxPacketBytes)
          throw new Error(`a packet's attachments passed ${limits.maxPacketBytes} bytes`);
        // Before the parser's own step: the last attachment completes the packet, and its call runs at once.
        if (this.awaitingAttachments !== undefined) this.awaitingAttachments.bytes += attachmentBytes(obj);
      }
      super.add(obj);
    }
  }
  /**
   * An event refused before its payload was parsed: the header (type, namespace, acknowledgement id: all that comes
   * before the payload's first bracket) is decoded alone and the refusal takes the arguments' place, so the "call"
   * handler answers it. Without an acknowledgement id the handler drops it; a binary event still takes its
   * attachments, and they are charged with it. Any other packet type closes the connection with `err`.
   */
  const refuseEvent = (decoder: GuardedDecoder, text: string, refused: FrameRefusal, err: unknown): Packet => {
    const payloadAt = text.search(/[[{]/);
    const header = decodeString.call(decoder, payloadAt < 0 ? text : text.slice(0, payloadAt));
    if (header.type !== PacketType.EVENT && header.type !== PacketType.BINARY_EVENT) throw err;
    if (header.type === PacketType.BINARY_EVENT) decoder.awaitingAttachments = refused;
    return { ...header, data: ['call', refused] };
  };
  Object.defineProperty(GuardedDecoder.prototype, 'decodeString', {
    value(this: GuardedDecoder, text: string): Packet {
      this.awaitingAttachments = undefined;
      // A binary packet holds its attachments until the last arrives; before any authentication (a CONNECT not yet
      // admitted, or refused) nothing may be held: the connection closes, as for a malformed packet. Every other
      // packet of such a connection is decoded and dropped by socket.io, holding nothing.
      if (!this.admitted && BINARY_TYPES.has(text.charAt(0)))
        throw new Error('a binary packet before the connection was admitted');
      const excess = scanFrame(text, limits);
      if (excess !== undefined)
        return refuseEvent(this, text, new FrameRefusal(excess, text.length), new Error(excess));
      let packet: Packet;
      try {
        packet = decodeString.call(this, text);
      } catch (err) {
        // The parser refuses a payload JSON.parse cannot read with the one error it has for every bad packet, and
        // socket.io closes the connection on it: the call got no answer, and its client waited out its own timeout
        // to learn only that the connection dropped. An event whose payload is not JSON (NaN from Python, most
        // often) is answered instead, by its acknowledgement id; anything else still closes the connection.
        const payloadAt = text.search(/[[{]/);
        const reason = payloadAt < 0 ? undefined : jsonError(text.slice(payloadAt));
        if (reason === undefined) throw err;
        return refuseEvent(this, text, new FrameRefusal(notJson(reason), text.length, 'INVALID_ARGUMENT'), err);
      }
      const data: unknown[] | undefined = Array.isArray(packet.data) ? (packet.data as unknown[]) : undefined;
      // Only "call" has a handler; the parser puts the attachments back inside the holder's value.
      if (data !== undefined && data[0] === 'call' && data.length > 1) {
        const framed = new FramedCall(data[1], text.length);
        data[1] = framed;
        if (packet.type === PacketType.BINARY_EVENT) this.awaitingAttachments = framed;
      } else if (data !== undefined && data[0] !== 'call') {
        // Any other event reaches the "call" handler as a refusal, charged by its frame like a call: a client in
        // another language that names the event wrongly gets an answer instead of waiting for one. A number is a
        // name socket.io accepts too (`427[5,{}]` went unanswered and uncharged).
        const refused = unknownEvent(String(data[0]), text.length);
        if (packet.type === PacketType.BINARY_EVENT) this.awaitingAttachments = refused;
        return { ...packet, data: ['call', refused] };
      }
      return packet;
    },
  });
  return { Encoder, Decoder: GuardedDecoder };
};

/**
 * Lets a connection a namespace admitted send binary packets (guardedParser refuses them before). socket.io keeps
 * each connection's decoder on its private `client.decoder`; pinned by test/security/attachment-hoard.test.ts.
 */
export const admitDecoder = (socket: { client: unknown }): void => {
  const decoder = (socket.client as { decoder?: { admitted?: boolean } }).decoder;
  if (decoder) decoder.admitted = true;
};
