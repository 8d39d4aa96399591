import type { z } from 'zod';

/** The parts of a zod schema's definition the argument loosening (optional-nulls.ts, python-args.ts) reads. */
type Def = z.core.$ZodTypeDef & {
  innerType?: z.core.$ZodType;
  in?: z.core.$ZodType;
  out?: z.core.$ZodType;
  options?: readonly z.core.$ZodType[];
  element?: z.core.$ZodType;
  shape?: Record<string, z.core.$ZodType>;
};

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/**
 * The definition a sent value is checked against first, seen through wrappers (optional, default, …) and pipes: a
 * `.transform()` checks its input side, and z.preprocess, a pipe from a transform, its output side.
 */
export const checkedDef = (schema: z.core.$ZodType, depth = 0): Def => {
  const def = schema._zod.def as Def;
  if (depth > 16) return def;
  if (WRAPPERS.has(def.type) && def.innerType) return checkedDef(def.innerType, depth + 1);
  if (def.type === 'pipe' && def.in && def.out)
    return checkedDef(def.in._zod.def.type === 'transform' ? def.out : def.in, depth + 1);
  return def;
};
