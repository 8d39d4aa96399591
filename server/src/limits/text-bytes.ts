/**
 * A text's size in UTF-8 bytes, the measure of the workspace quota, the event size cap and the memory log's byte
 * budget (`serializedBytes` in shared counts the same, in code that also runs in a browser). The Redis script counts
 * the same text with `#`.
 */
export const textBytes = (text: string): number => Buffer.byteLength(text, 'utf8');
