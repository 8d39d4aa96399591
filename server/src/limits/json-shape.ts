import { PlanHubError, serializedBytes } from '@planhub/shared';
import { LONE_SURROGATE, checkWellFormedText } from './well-formed-text.ts';

export interface ShapeLimits {
  maxDepth: number;
  /** Omit to check depth only. */
  maxBytes?: number;
  /**
   * Also refuse text that is not valid Unicode (a lone surrogate), reported under this name: checked in the same walk,
   * so a call's arguments are walked once; the path of the bad text is only looked for once it was found.
   */
  wellFormedText?: string;
}

/**
 * Depth and approximate JSON size of a parsed value, walked iteratively with early exit: a hostile 100,000-level
 * nesting must not overflow the stack here, nor later in JSON.stringify, structuredClone or a store codec.
 * Returns undefined when within limits, else what was exceeded.
 */
export const measureShape = (
  value: unknown,
  limits: ShapeLimits,
): { exceeded: 'depth' | 'bytes' | 'text'; depth: number; bytes: number } | undefined => {
  const text = limits.wellFormedText !== undefined;
  const maxBytes = limits.maxBytes ?? Number.POSITIVE_INFINITY;
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  let bytes = 0;
  let deepest = 0;
  while (stack.length > 0) {
    const item = stack.pop() as { value: unknown; depth: number };
    const v = item.value;
    if (typeof v === 'string') {
      if (text && LONE_SURROGATE.test(v)) return { exceeded: 'text', depth: deepest, bytes };
      bytes += Buffer.byteLength(v, 'utf8') + 2;
    } else if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) bytes += 8;
    else if (typeof v === 'bigint' || typeof v === 'function' || typeof v === 'symbol') bytes += 8;
    else if (typeof v === 'object') {
      const depth = item.depth + 1;
      deepest = Math.max(deepest, depth);
      if (depth > limits.maxDepth) return { exceeded: 'depth', depth, bytes };
      // As stored, not as received: a Buffer becomes {"type":"Buffer","data":[…]}, up to 4 bytes per byte.
      if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) bytes += serializedBytes(v);
      else if (Array.isArray(v)) {
        bytes += 2 + v.length;
        for (const child of v as unknown[]) stack.push({ value: child, depth });
      } else {
        bytes += 2;
        for (const [key, child] of Object.entries(v)) {
          if (text && LONE_SURROGATE.test(key)) return { exceeded: 'text', depth, bytes };
          bytes += Buffer.byteLength(key, 'utf8') + 4;
          stack.push({ value: child, depth });
        }
      }
    }
    if (bytes > maxBytes) return { exceeded: 'bytes', depth: deepest, bytes };
  }
  return undefined;
};

/** Throws RESOURCE_EXHAUSTED naming the field and the limit when `value` is too deep or too large. */
export const checkShape = (field: string, value: unknown, limits: ShapeLimits): void => {
  const over = measureShape(value, limits);
  if (!over) return;
  if (over.exceeded === 'text') checkWellFormedText(value, limits.wellFormedText ?? field);
  if (over.exceeded === 'depth')
    throw new PlanHubError(
      'RESOURCE_EXHAUSTED',
      `${field} is nested more than ${limits.maxDepth} levels deep; flatten it.`,
      { field, limit: limits.maxDepth, kind: 'depth' },
    );
  throw new PlanHubError(
    'RESOURCE_EXHAUSTED',
    `${field} is larger than ${limits.maxBytes} bytes as JSON; store large data elsewhere and pass a reference.`,
    { field, limit: limits.maxBytes, kind: 'bytes' },
  );
};
