import type { Packet } from 'socket.io-parser';
import { Decoder, Encoder, PacketType } from 'socket.io-parser';

export interface FrameLimits {
  /** Keys plus array elements in one frame. */
  maxValues: number;
  /** Nesting of a call's arguments (the frame wraps them two levels deeper: ["call", { tool, args }]). */
  maxDepth: number;
}

const FRAME_WRAPPING = 2;

/** What a "call" receives instead of its arguments when the raw frame was refused before parsing. */
export class FrameRefusal {
  constructor(
    readonly message: string,
    /** Size of the refused frame: it is still charged to the sender's address. */
    readonly bytes: number,
  ) {}
}

/**
 * A call whose argument is not an object (a string, a number): passed on as it is for dispatch to refuse, with the
 * size of its frame, so that a megabyte of text sent as a call costs what a megabyte of arguments costs.
 */
export class UnshapedCall {
  constructor(
    readonly value: unknown,
    readonly bytes: number,
  ) {}
}

/** What dispatch gets of a call's first argument: the argument itself. */
export const callArgument = (raw: unknown): unknown => (raw instanceof UnshapedCall ? raw.value : raw);

/**
 * Size in bytes (UTF-16 units of text read, plus the bytes of binary attachments) of the frame each decoded call's
 * arguments came from.
 */
const frameSizes = new WeakMap<object, number>();
export const frameSizeOf = (args: unknown): number => {
  if (args instanceof FrameRefusal || args instanceof UnshapedCall) return args.bytes;
  if (ArrayBuffer.isView(args) || args instanceof ArrayBuffer) return args.byteLength;
  return typeof args === 'object' && args !== null ? (frameSizes.get(args) ?? 0) : 0;
};

/** The byte length of one binary attachment as socket.io-parser receives it (a buffer, or base64 text). */
const attachmentBytes = (data: unknown): number => {
  if (ArrayBuffer.isView(data) || data instanceof ArrayBuffer) return data.byteLength;
  const base64 = (data as { data?: unknown } | null)?.data;
  return typeof base64 === 'string' ? base64.length : 0;
};

/**
 * One pass over the raw JSON text, counting values and nesting outside strings, stopping at the first limit
 * exceeded: a hostile frame of 60,000 keys costs a short scan instead of a parse, a walk and a schema run.
 */
export const scanFrame = (text: string, limits: FrameLimits): string | undefined => {
  let depth = 0;
  let values = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > limits.maxDepth + FRAME_WRAPPING)
        return `arguments is nested more than ${limits.maxDepth} levels deep; flatten it.`;
    } else if (c === 125 || c === 93) depth--;
    else if (c === 58 || c === 44) {
      if (++values > limits.maxValues)
        return (
          `The call has more than ${limits.maxValues} keys and array elements; send less per call, or store ` +
          'large data elsewhere and pass a reference.'
        );
    }
  }
  return undefined;
};

type DecodeString = (this: Decoder, text: string) => Packet;
/** socket.io-parser's own step from text to packet (a private method: pinned by the frame tests). */
const decodeString = (Decoder.prototype as unknown as { decodeString: DecodeString }).decodeString;

/**
 * A socket.io parser that checks every text frame before JSON.parse. A refused event reaches the "call" handler with
 * a FrameRefusal instead of its arguments (answered as an error if it has an acknowledgement, dropped if not); any
 * other refused packet closes the connection, as socket.io does with a malformed one.
 */
export const guardedParser = (limits: FrameLimits) => {
  class GuardedDecoder extends Decoder {
    /** The arguments of the binary event being put together: its attachments are added to their frame's size. */
    awaitingAttachments: object | undefined;

    override add(obj: unknown): void {
      // Before the parser's own step: the last attachment completes the packet, and its call runs at once.
      if (typeof obj !== 'string' && this.awaitingAttachments !== undefined) {
        const args = this.awaitingAttachments;
        frameSizes.set(args, (frameSizes.get(args) ?? 0) + attachmentBytes(obj));
      }
      super.add(obj);
    }
  }
  Object.defineProperty(GuardedDecoder.prototype, 'decodeString', {
    value(this: GuardedDecoder, text: string): Packet {
      const refusal = scanFrame(text, limits);
      if (refusal === undefined) {
        const packet = decodeString.call(this, text);
        const data: unknown[] | undefined = Array.isArray(packet.data) ? (packet.data as unknown[]) : undefined;
        const args = data?.[1];
        this.awaitingAttachments = undefined;
        if (typeof args === 'object' && args !== null) {
          frameSizes.set(args, text.length);
          if (packet.type === PacketType.BINARY_EVENT) this.awaitingAttachments = args;
        } else if (data !== undefined && data[0] === 'call' && data.length > 1)
          data[1] = new UnshapedCall(args, text.length);
        return packet;
      }
      const payloadAt = text.search(/[[{]/);
      const header = decodeString.call(this, payloadAt < 0 ? text : text.slice(0, payloadAt));
      if (header.type !== PacketType.EVENT && header.type !== PacketType.BINARY_EVENT) throw new Error(refusal);
      // Without an acknowledgement id the call handler drops it; a binary event still takes its attachments.
      return { ...header, data: ['call', new FrameRefusal(refusal, text.length)] };
    },
  });
  return { Encoder, Decoder: GuardedDecoder };
};
