export const PLAN_004_STATUSES = ['pending', 'in_progress', 'completed', 'skipped'] as const;
export type Plan004Status = (typeof PLAN_004_STATUSES)[number];
