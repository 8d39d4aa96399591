import { PlanHubError } from '@planhub/shared';

/** A UTF-16 code unit of a surrogate pair standing alone: in `u` mode a whole pair is one code point, never Cs. */
export const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Where a parsed value holds text that is not valid Unicode (a lone surrogate, e.g. the JSON escape "\ud800"), as a
 * path like `args.step_id`, or undefined. Such text cannot be stored faithfully: UTF-8 (Redis, LMDB, the event log)
 * turns it into U+FFFD, so "\ud800" and "\ufffd" would name one step, and URI-encoding a key throws.
 */
export const illFormedTextAt = (value: unknown, root: string): string | undefined => {
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: root }];
  while (stack.length > 0) {
    const item = stack.pop() as { value: unknown; path: string };
    const v = item.value;
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return item.path;
    } else if (Array.isArray(v)) {
      v.forEach((child: unknown, i) => stack.push({ value: child, path: `${item.path}[${i}]` }));
    } else if (typeof v === 'object' && v !== null && !ArrayBuffer.isView(v) && !(v instanceof ArrayBuffer)) {
      for (const [key, child] of Object.entries(v)) {
        if (LONE_SURROGATE.test(key)) return `${item.path} (a key)`;
        stack.push({ value: child, path: `${item.path}.${key}` });
      }
    }
  }
  return undefined;
};

/** Throws INVALID_ARGUMENT naming the field when `value` holds text that is not valid Unicode. */
export const checkWellFormedText = (value: unknown, root: string): void => {
  const at = illFormedTextAt(value, root);
  if (at === undefined) return;
  throw new PlanHubError(
    'INVALID_ARGUMENT',
    `${at.slice(0, 200)} is not valid Unicode text (it holds an unpaired UTF-16 surrogate such as "\\ud800"). ` +
      'Send well-formed text: encode the value as UTF-8, or drop the broken character.',
    { field: at.slice(0, 200) },
  );
};
