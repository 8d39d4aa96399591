/**
 * Fixed length limits enforced by the schemas. They bound what one call can write, so a 1 MB string is refused at
 * the door with INVALID_ARGUMENT. Count limits (steps per plan, plans per agent, …) are server config.
 */
export const MAX_ID = 128;
export const MAX_TITLE = 500;
export const MAX_DESCRIPTION = 4_000;
export const MAX_RESULT = 20_000;
export const MAX_ARRAY = 200;

/**
 * Byte caps on free-form values, measured as JSON (UTF-8), the form in which they are stored and sent: one todo item
 * with whatever extra keys it carries, one plan-mode note given as an object, and one event.
 */
export const MAX_ITEM_BYTES = 8 * 1024;
export const MAX_NOTE_BYTES = MAX_DESCRIPTION;
export const MAX_EVENT_BYTES = 512 * 1024;
/**
 * Calls one connection may have unanswered: past it a node answers the next RESOURCE_EXHAUSTED at once (the
 * server's transport/calls-in-flight.ts says how it is made up), and the SDK queues its calls to stay under it.
 */
export const CALLS_IN_FLIGHT_PER_CONNECTION = 96;

/**
 * UTF-8 bytes of `text` as TextEncoder would encode it (a lone surrogate as U+FFFD, 3 bytes), counted without
 * encoding it: encoding allocated a copy of every stored document and event only to measure it.
 */
export const utf8Bytes = (text: string): number => {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    else if (unit >= 0xd800 && unit <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A surrogate pair: two units, four bytes.
      bytes += 2;
      i += 1;
    } else bytes += 2;
  }
  return bytes;
};

/** Size of `value` as stored: its JSON text in UTF-8 bytes (Infinity for what JSON cannot hold, e.g. a BigInt). */
export const serializedBytes = (value: unknown): number => {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? 0 : utf8Bytes(text);
  } catch {
    return Number.POSITIVE_INFINITY;
  }
};

/** For a schema refinement: whether `value` fits in `max` bytes as JSON. */
export const fitsBytes = (max: number) => (value: unknown) => serializedBytes(value) <= max;
