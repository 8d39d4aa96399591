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

const utf8 = new TextEncoder();

/** Size of `value` as stored: its JSON text in UTF-8 bytes (Infinity for what JSON cannot hold, e.g. a BigInt). */
export const serializedBytes = (value: unknown): number => {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? 0 : utf8.encode(text).length;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
};

/** For a schema refinement: whether `value` fits in `max` bytes as JSON. */
export const fitsBytes = (max: number) => (value: unknown) => serializedBytes(value) <= max;
