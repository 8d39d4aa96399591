import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config-error.ts';
import { parseConfig } from '../src/config.ts';

/**
 * A config object handed to createServer is code, not text: it may hold what JSON cannot write. The refusal must
 * still be a ConfigError naming the key, not a TypeError from quoting the value.
 */
describe('a config object with values JSON cannot write', () => {
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  it.each([
    ['port', 'a function', () => 4000],
    ['logLevel', 'a BigInt', 4000n],
    ['port', 'a cycle', cycle],
  ])('is refused as a ConfigError naming the key when %s is %s', (key, _, value) => {
    const parse = () => parseConfig({ [key]: value });
    expect(parse).toThrow(ConfigError);
    expect(parse).toThrow(new RegExp(`^${key} is `));
  });
});
