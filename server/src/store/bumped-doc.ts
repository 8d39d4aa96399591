import { parseStoredJson } from './parsed-json.ts';

/**
 * The stored text of a document that has a version but no value: one only bumped (store.ts, `bump`), never written.
 * The memory and file stores keep it so; Redis keeps the version field without the `d` field.
 */
export const NO_VALUE = '';

/** A stored document's value: undefined while it was only bumped, else its JSON parsed (parsed-json.ts). */
export const storedValue = (json: string, where: string): unknown =>
  json === NO_VALUE ? undefined : parseStoredJson(json, where);
