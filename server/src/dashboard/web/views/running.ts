import { formatDuration, stepDuration } from '@planhub/shared';
import { h } from '../dom.ts';

const msSince = (since: string, now: number): number => Math.max(0, now - Date.parse(since));

/**
 * A duration still running ("so far"): it counts from `since` and tickRunning moves it on. Plain text, never part of
 * a control's name or a live region, so a screen reader reads the current count when asked and is not told of it
 * each second.
 */
export const runningDuration = (since: string, now: number, attrs: Record<string, string> = {}): HTMLElement =>
  h('span', { ...attrs, 'data-running-since': since }, formatDuration(msSince(since, now)));

/**
 * How long a step took, or has taken so far (a running duration, moved on by tickRunning); null when it never
 * started.
 */
export const stepTook = (
  step: { started_at?: string | null; completed_at?: string | null },
  now: number,
  attrs: Record<string, string> = {},
): HTMLElement | null => {
  const took = stepDuration(step, new Date(now).toISOString());
  if (took === null) return null;
  return step.started_at && !step.completed_at
    ? runningDuration(step.started_at, now, attrs)
    : h('span', attrs, formatDuration(took));
};

/**
 * Moves every running duration under `root` on to `now`, writing only a text that changed, and into its existing
 * text node: the page is not rebuilt, so what a reader focused, hovered or selected on it stays.
 */
export const tickRunning = (root: ParentNode, now: number): void => {
  root.querySelectorAll<HTMLElement>('[data-running-since]').forEach((el) => {
    const ms = msSince(el.dataset.runningSince ?? '', now);
    if (Number.isNaN(ms)) return;
    const text = formatDuration(ms);
    const node = el.firstChild;
    if (node instanceof Text && el.childNodes.length === 1) {
      if (node.data !== text) node.data = text;
    } else if (el.textContent !== text) el.textContent = text;
  });
};
