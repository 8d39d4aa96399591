import { describe, expect, it } from 'vitest';
import { createCorruptEntries } from '../src/store/presence/corrupt-entries.ts';

describe('the corrupt presence entries a backend names', () => {
  it('names each once, however often it is read', () => {
    const corrupt = createCorruptEntries();
    for (let i = 0; i < 3; i++) corrupt.found('presence:ws:a field x', 'not JSON');
    expect(corrupt.take().map((e) => e.message)).toEqual([
      expect.stringContaining('The stored presence entry presence:ws:a field x is corrupt (not JSON)'),
    ]);
    corrupt.found('presence:ws:a field x', 'not JSON');
    expect(corrupt.take()).toEqual([]);
  });

  it('cuts a long name, so a huge raw field does not go into memory and the log whole', () => {
    const corrupt = createCorruptEntries();
    corrupt.found(`presence:ws:a field ${'x'.repeat(100_000)}`, 'not JSON');
    const [error] = corrupt.take();
    expect(error?.message.length).toBeLessThan(400);
    expect(error?.message).toContain('…');
  });

  it('stops naming past its bound with one error that says so, instead of naming every entry again', () => {
    const corrupt = createCorruptEntries();
    const names = Array.from({ length: 10_050 }, (_, i) => `presence:ws:a field ${i}`);
    for (const name of names) corrupt.found(name, 'not JSON');
    const first = corrupt.take();
    expect(first).toHaveLength(10_001);
    expect(first.at(-1)?.message).toMatch(/^More than 10000 stored presence entries are corrupt/);
    // Every read finds them all again: nothing more is named.
    for (const name of names) corrupt.found(name, 'not JSON');
    expect(corrupt.take()).toEqual([]);
  });
});
