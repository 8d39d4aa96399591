import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serializedBytes, utf8Bytes } from '../src/limits.ts';

const encoded = (text: string) => new TextEncoder().encode(text).length;

describe('UTF-8 byte counts', () => {
  it('count what TextEncoder encodes, lone surrogates included', () => {
    // Any UTF-16 units: ASCII, two- and three-byte characters, surrogate pairs and lone halves of them.
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        expect(utf8Bytes(a)).toBe(encoded(a));
        expect(utf8Bytes(b + a)).toBe(encoded(b + a));
      }),
      { numRuns: 2000, seed: 5 },
    );
    for (const text of ['', 'a', 'é', '€', '😀', '\ud83d', '\ude00', 'x\ud83d', '\ud83d\ud83d\ude00', '\ude00\ude00'])
      expect(utf8Bytes(text)).toBe(encoded(text));
  });

  it('measure a value as its JSON text', () => {
    expect(serializedBytes({ note: 'café 😀' })).toBe(encoded(JSON.stringify({ note: 'café 😀' })));
    expect(serializedBytes(undefined)).toBe(0);
    expect(serializedBytes({ n: 1n })).toBe(Number.POSITIVE_INFINITY);
  });
});
