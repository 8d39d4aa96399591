import { parseStoredDocument } from './parsed-json.ts';

/**
 * The stored text of a document that has a version but no value: one only bumped (store.ts, `bump`), never written.
 * The memory and file stores keep it so; Redis keeps the version field without the `d` field.
 */
export const NO_VALUE = '';

/** Document `docKey`'s stored value: undefined while it was only bumped, else its JSON parsed (parsed-json.ts). */
export const storedValue = (docKey: string, json: string, where: string): unknown =>
  json === NO_VALUE ? undefined : parseStoredDocument(docKey, json, where);
