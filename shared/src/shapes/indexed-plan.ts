export const INDEXED_PLAN_STATUSES = ['pending', 'in_progress', 'completed', 'skipped'] as const;
export type IndexedPlanStatus = (typeof INDEXED_PLAN_STATUSES)[number];
