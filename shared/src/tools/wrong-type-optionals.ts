import type { z } from 'zod';
import type { NullPlan } from './optional-nulls.ts';

type Issue = z.core.$ZodIssue;

/** The optional fields of the object at `path` (list indexes skipped: a list's items share one plan). */
const planAt = (plan: NullPlan, path: readonly PropertyKey[]): NullPlan | undefined => {
  let at: NullPlan | undefined = plan;
  for (const key of path) if (typeof key === 'string') at = at?.nested.get(key);
  return at;
};

const removeAt = (root: unknown, path: readonly PropertyKey[], key: string): void => {
  let at: unknown = root;
  for (const segment of path)
    at = typeof at === 'object' && at !== null ? (at as Record<PropertyKey, unknown>)[segment] : undefined;
  if (typeof at === 'object' && at !== null && !Array.isArray(at)) delete (at as Record<string, unknown>)[key];
};

/**
 * The fields Triggerfish reads with a type check and otherwise ignores (its executor's `typeof` and `Array.isArray`
 * tests): only these are dropped. PlanHub's own fields (`plan_id`, `agent_id`, `modification`) choose what a call acts
 * on, so one of the wrong type is refused, never read as absent: `modification: "false"` must not approve a change.
 */
export const TYPE_CHECKED_UPSTREAM = new Set([
  'scope',
  'deviations',
  'new_files',
  'new_verification',
  'alternatives_considered',
  'risks',
  'files_to_create',
  'files_to_modify',
  'tests_to_write',
  'estimated_complexity',
  'files',
  'depends_on',
  'verification',
]);

/**
 * `args` without the optional fields `issues` found of the wrong type (the same object when there is none), for a
 * dialect whose upstream reads such a field as absent: Triggerfish (002) reads `typeof input.scope === "string" ?
 * input.scope : undefined` and `Array.isArray(x) ? x : []`, so `deviations: "none"` or a step's `files: "a.ts"` is
 * served there. A required field of the wrong type, or one not in TYPE_CHECKED_UPSTREAM, is left for the refusal.
 */
export const withoutWrongTypedOptionals = (
  args: unknown,
  plan: NullPlan | undefined,
  issues: readonly Issue[],
): unknown => {
  if (plan === undefined) return args;
  let copy: unknown;
  for (const issue of issues) {
    const key = issue.path.at(-1);
    if (issue.code !== 'invalid_type' || typeof key !== 'string' || !TYPE_CHECKED_UPSTREAM.has(key)) continue;
    const parent = issue.path.slice(0, -1);
    if (!planAt(plan, parent)?.optional.has(key)) continue;
    // Only the rare refused call gets here, and its size is bounded by the frame limit.
    copy ??= structuredClone(args);
    removeAt(copy, parent, key);
  }
  return copy ?? args;
};
