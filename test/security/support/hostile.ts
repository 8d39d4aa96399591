import fc from 'fast-check';
import type { Seeded } from './fixture.ts';

/** Every property name anywhere in a JSON Schema (nested objects, array items, unions). */
export const jsonKeysOf = (schema: unknown): string[] => {
  const keys = new Set<string>();
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...(node as readonly unknown[]));
    else if (node && typeof node === 'object') {
      const props = (node as { properties?: Record<string, unknown> }).properties;
      if (props) for (const k of Object.keys(props)) keys.add(k);
      stack.push(...Object.values(node as Record<string, unknown>));
    }
  }
  return [...keys].sort();
};

/** Values a real call might carry, so generated calls get past validation into the handlers. */
export const plausibleValues = (seeded: Seeded): unknown[] => [
  seeded.planId,
  seeded.indexedPlanId,
  ...seeded.taskIds,
  'fuzzer',
  'someone-else',
  '*',
  'step_1',
  'step_2',
  'step_99',
  '1',
  '2',
  '999',
  'pending',
  'in_progress',
  'completed',
  'failed',
  'skipped',
  'cancelled',
  'deleted',
  'create',
  'update',
  'list',
  'high',
  'step_completed',
  ['step_completed', 'plan_created'],
  [{ agent_id: 'fuzzer', step_id: 'step_1' }],
  [{ id: 'x', content: 'c', status: 'pending', priority: 'low' }],
  [{ content: 'c', activeForm: 'a', status: 'pending' }],
  [{ description: 'd' }],
  ['a step'],
  { summary: 's', approach: 'a', steps: [{ id: 1, description: 'd' }] },
  { key: 'value' },
  'a description',
  '',
  ' ',
  0,
  1,
  2,
  -1,
  true,
  false,
  null,
  [],
  {},
];

const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff }).map((c) => String.fromCodePoint(c));
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));

/** Nesting `depth` levels of arrays or objects around a leaf. */
const nested = (depth: number, leaf: unknown, objects: boolean): unknown => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = objects ? { a: value } : [value];
  return value;
};

/**
 * What a hostile client sends: wrong types, lone surrogates, huge strings and arrays, deep nesting, prototype keys,
 * binary attachments. Sizes stay under the 1 MiB frame limit (a larger frame only closes its own connection; the
 * raw-frame test covers that).
 */
export const hostileValue = (keys: readonly string[]): fc.Arbitrary<unknown> => {
  const cheap = [
    fc.string(),
    // Any code point (astral ones too). A plain integer unit: fast-check's 'binary' unit builds a 1.1M-entry map.
    fc.string({ unit: anyCodePoint, maxLength: 16 }),
    fc.string({ unit: loneSurrogate, minLength: 1, maxLength: 4 }),
    fc.double(),
    fc.integer(),
    fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, -0, 1e308, Number.NaN, Number.POSITIVE_INFINITY, null, undefined),
    fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
    fc.dictionary(
      fc.constantFrom('__proto__', 'constructor', 'prototype', ...keys.slice(0, 8)),
      fc.oneof(fc.constant({ polluted: true }), fc.string(), fc.integer()),
      { maxKeys: 3 },
    ),
  ];
  // Heavy values cost real encoding and parsing time on both ends: rarer, but every run has hundreds of them.
  const heavy = [
    fc.integer({ min: 1000, max: 64_000 }).map((n) => 'x'.repeat(n)),
    fc.integer({ min: 100, max: 5000 }).map((n) => new Array<number>(n).fill(7)),
    // socket.io-client itself recurses through a frame that carries a Buffer; deeper frames are in the raw-frame test.
    fc.tuple(fc.integer({ min: 10, max: 500 }), fc.boolean()).map(([d, o]) => nested(d, 'deep', o)),
    fc.jsonValue({ maxDepth: 4 }),
  ];
  return fc.oneof(
    ...cheap.map((arbitrary) => ({ weight: 4, arbitrary })),
    ...heavy.map((arbitrary) => ({ weight: 1, arbitrary })),
  );
};

/** Own property names of the built-in prototypes: a polluting call would add one. */
export const prototypeBaseline = () => ({
  object: Object.getOwnPropertyNames(Object.prototype).sort(),
  array: Object.getOwnPropertyNames(Array.prototype).sort(),
  fn: Object.getOwnPropertyNames(Function.prototype).sort(),
});

/** A copy for failure messages: long strings and arrays abbreviated, nesting cut at 6 levels (no stack overflow). */
const abbreviate = (v: unknown, depth: number): unknown => {
  if (typeof v === 'string') return v.length > 40 ? `${v.slice(0, 20)}…(${v.length} chars)` : v;
  if (Buffer.isBuffer(v)) return `<Buffer ${v.length} bytes>`;
  if (v === null || typeof v !== 'object') return v;
  if (depth >= 6) return Array.isArray(v) ? '[…deeper]' : '{…deeper}';
  if (Array.isArray(v)) {
    const items = (v as unknown[]).slice(0, 6).map((x) => abbreviate(x, depth + 1));
    return v.length > 6 ? [...items, `…(${v.length} items)`] : items;
  }
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, abbreviate(x, depth + 1)]));
};

export const brief = (value: unknown, max = 600): string => {
  const text = JSON.stringify(abbreviate(value, 0));
  return text === undefined ? String(value) : text.length > max ? `${text.slice(0, max)}…` : text;
};

/** fc.check with a short report: the shrunk counterexample (abbreviated) and what failed. */
export const checkProperty = async <T>(property: fc.IAsyncProperty<T>, numRuns: number): Promise<number> => {
  const details = await fc.check(property, { numRuns });
  if (!details.failed) return details.numRuns;
  const failure =
    details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(
    `Property failed after ${details.numRuns} cases (seed ${details.seed}, path "${details.counterexamplePath}").\n` +
      `Counterexample: ${brief(details.counterexample)}\nFailure: ${failure.slice(0, 1500)}`,
  );
};
