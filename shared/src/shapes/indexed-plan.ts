export const INDEXED_PLAN_STATUSES = ['pending', 'in_progress', 'completed', 'skipped'] as const;
export type IndexedPlanStatus = (typeof INDEXED_PLAN_STATUSES)[number];

/**
 * What upstream's failed answer holds beside `ok: false` and `error`, per tool: its pydantic output model dumped with
 * the fields it did not set (supypowers serializes with model_dump), so a host that reads `result.steps_count` or
 * `result.steps` on a failure reads what it read there.
 */
export const INDEXED_PLAN_FAILURE_FIELDS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  create_plan: { plan_id: null, title: null, steps_count: 0 },
  update_plan: { plan_id: null, step_description: null, new_status: null },
  get_plan: { plan_id: null, title: null, steps: [], completed_count: 0, total_count: 0 },
};
