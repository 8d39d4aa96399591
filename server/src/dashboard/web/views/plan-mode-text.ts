import type { PlanModeView } from '@planhub/shared';

/** Text cut to `max` characters with an ellipsis, and whether it was: a card says when it shows less than all. */
export const clip = (text: string, max: number): { text: string; cut: boolean } =>
  text.length <= max ? { text, cut: false } : { text: `${text.slice(0, max - 1).trimEnd()}…`, cut: true };

/** At most `max` items, and how many were left out. */
export const firstOf = <T>(items: readonly T[], max: number): { shown: T[]; more: number } => ({
  shown: items.slice(0, max),
  more: Math.max(0, items.length - max),
});

/** "1 test" / "2 tests". */
export const count = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** The 002 fields of one step, found by its PlanHub id. */
export const modeStep = (mode: PlanModeView | undefined, stepId: string) =>
  mode?.steps.find((s) => s.step_id === stepId);
