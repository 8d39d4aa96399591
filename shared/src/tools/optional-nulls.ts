import type { z } from 'zod';
import { checkedDef } from './schema-walk.ts';

/**
 * Where a tool's arguments may hold a `null` that means "left out": the optional fields of each object, and the
 * objects nested in its fields and lists. Upstream's tools read such a null as absent (Python's `args.get(...)` and
 * `Optional[...] = None`, TypeScript's `typeof x === "string" ? x : undefined`, Go's zero values), and hosts send it:
 * a strict function-calling mode has the model fill every parameter, an optional one with null.
 */
export interface NullPlan {
  /** Fields whose schema takes undefined (optional or defaulted): a null there is dropped. */
  optional: ReadonlySet<string>;
  /** Fields holding objects, or lists of them, in which to look further. */
  nested: ReadonlyMap<string, NullPlan>;
}

/** The object schemas a value of `schema` is checked against, seen through wrappers, pipes, unions and lists. */
const objectsOf = (schema: z.core.$ZodType, depth = 0): Array<Record<string, z.core.$ZodType>> => {
  if (depth > 16) return [];
  const def = checkedDef(schema);
  if (def.type === 'object' && def.shape) return [def.shape];
  if (def.type === 'union' && def.options) return def.options.flatMap((o) => objectsOf(o, depth + 1));
  if (def.type === 'array' && def.element) return objectsOf(def.element, depth + 1);
  return [];
};

/** A field is optional only if every form that names it lets it be left out (a union's forms may differ). */
const planOf = (schema: z.core.$ZodType, depth = 0): NullPlan | undefined => {
  const shapes = objectsOf(schema);
  if (shapes.length === 0 || depth > 8) return undefined;
  const optional = new Set<string>();
  const required = new Set<string>();
  const nested = new Map<string, NullPlan>();
  for (const shape of shapes)
    for (const [key, field] of Object.entries(shape)) {
      if (field._zod.optin === undefined) required.add(key);
      else optional.add(key);
      if (!nested.has(key)) {
        const inner = planOf(field, depth + 1);
        if (inner) nested.set(key, inner);
      }
    }
  for (const key of required) optional.delete(key);
  return { optional, nested };
};

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const strip = (value: unknown, plan: NullPlan): unknown => {
  if (Array.isArray(value)) {
    const items: readonly unknown[] = value;
    let copy: unknown[] | undefined;
    items.forEach((item, i) => {
      const stripped = strip(item, plan);
      if (stripped !== item) (copy ??= [...items])[i] = stripped;
    });
    return copy ?? value;
  }
  if (!isPlainObject(value)) return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, field] of Object.entries(value)) {
    if (field === null && plan.optional.has(key)) {
      copy ??= { ...value };
      delete copy[key];
      continue;
    }
    const inner = plan.nested.get(key);
    const stripped = inner && field !== null ? strip(field, inner) : field;
    if (stripped !== field) (copy ??= { ...value })[key] = stripped;
  }
  return copy ?? value;
};

/**
 * `args` without the nulls of optional fields (the same object when it has none), for a schema made into a plan once
 * with `optionalNullsOf`.
 */
export const withoutOptionalNulls = (args: unknown, plan: NullPlan | undefined): unknown =>
  plan === undefined ? args : strip(args, plan);

export const optionalNullsOf = (schema: z.core.$ZodType): NullPlan | undefined => planOf(schema);
