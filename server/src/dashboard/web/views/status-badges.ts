import type { DependencyRef } from '@planhub/shared';
import { h } from '../dom.ts';

interface StepLike {
  status: string;
  depends_on?: DependencyRef[] | undefined;
  blocked_by?: DependencyRef[] | undefined;
}

/**
 * A pending step whose dependencies have all ended. Its status stays "pending" (free to start, not started), as the
 * server and the API say: "unblocked" is a mark beside the status, never in its place, so every view agrees on both.
 */
export const isUnblocked = (step: StepLike): boolean =>
  step.status === 'pending' && (step.depends_on?.length ?? 0) > 0 && (step.blocked_by?.length ?? 0) === 0;

/** A step's or a task's status, as a badge its status styles colour. */
export const statusBadge = (status: string): HTMLElement =>
  h('span', { class: `badge status-${status}` }, status.replace('_', ' '));

/** A plan's status, as a badge. */
export const planBadge = (status: string): HTMLElement =>
  h('span', { class: `badge plan-${status}` }, status.replace('_', ' '));

/** The mark beside a step's status badge, or nothing. */
export const unblockedMark = (step: StepLike): HTMLElement | null =>
  isUnblocked(step)
    ? h('span', { class: 'badge unblocked', title: 'Every step it depends on has ended' }, 'unblocked')
    : null;
