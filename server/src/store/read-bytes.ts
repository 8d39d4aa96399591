/**
 * The text length of what a store parsed to hand out an event. A store that keeps its log as text (Redis, the file
 * store) notes it on each envelope it parses, so a scan can bound and charge the parsing it causes, which grows with
 * the payloads, not with the entries; the memory store hands out the objects it keeps, and notes nothing (0).
 */
const sizes = new WeakMap<object, number>();

export const noteReadBytes = <T extends object>(value: T, bytes: number): T => {
  sizes.set(value, bytes);
  return value;
};

export const readBytesOf = (value: object): number => sizes.get(value) ?? 0;
