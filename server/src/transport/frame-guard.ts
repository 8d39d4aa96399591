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

/** Size in bytes (UTF-16 units: what was read) of the frame each decoded call's arguments came from. */
const frameSizes = new WeakMap<object, number>();
export const frameSizeOf = (args: unknown): number =>
  args instanceof FrameRefusal
    ? args.bytes
    : typeof args === 'object' && args !== null
      ? (frameSizes.get(args) ?? 0)
      : 0;

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
  class GuardedDecoder extends Decoder {}
  Object.defineProperty(GuardedDecoder.prototype, 'decodeString', {
    value(this: Decoder, text: string): Packet {
      const refusal = scanFrame(text, limits);
      if (refusal === undefined) {
        const packet = decodeString.call(this, text);
        const args: unknown = Array.isArray(packet.data) ? packet.data[1] : undefined;
        if (typeof args === 'object' && args !== null) frameSizes.set(args, text.length);
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
