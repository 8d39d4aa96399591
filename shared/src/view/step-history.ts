import type { EventEnvelope, EventType } from '../events.ts';
import { compareEventIds } from '../events.ts';

/** What each step event says about the step's status, for the history a person reads. */
const STATUS_OF: Partial<Record<EventType, string>> = {
  step_added: 'pending',
  step_blocked: 'blocked',
  step_unblocked: 'pending',
  step_started: 'in_progress',
  step_stalled: 'stalled',
  step_completed: 'completed',
  step_failed: 'failed',
  step_skipped: 'skipped',
};

export interface StatusPeriod {
  status: string;
  event_id: string;
  from: string;
  /** When the next status began; null while this one lasts. */
  until: string | null;
  /** Milliseconds in this status (up to `now` for the current one); null when a timestamp is unreadable. */
  ms: number | null;
}

/**
 * A step's status history from its events (any order, other steps' events ignored): one period per status change,
 * each with how long it lasted; the last one lasts until `now`.
 */
export const statusHistory = (
  events: readonly EventEnvelope[],
  planId: string,
  stepId: string,
  now: string,
): StatusPeriod[] => {
  const mine = events
    .filter((e) => e.source_plan_id === planId && e.source_step_id === stepId && STATUS_OF[e.event_type])
    .sort((a, b) => compareEventIds(a.event_id, b.event_id));
  return mine.map((e, i) => {
    const next = mine[i + 1];
    const until = next?.timestamp ?? null;
    const ms = Date.parse(until ?? now) - Date.parse(e.timestamp);
    return {
      status: STATUS_OF[e.event_type]!,
      event_id: e.event_id,
      from: e.timestamp,
      until,
      ms: Number.isNaN(ms) ? null : Math.max(0, ms),
    };
  });
};

/** From the first start to the end (or `now`): the time a step was worked on, whatever happened in between. */
export const stepDuration = (
  step: { started_at?: string | null | undefined; completed_at?: string | null | undefined },
  now: string,
): number | null => {
  if (!step.started_at) return null;
  const ms = Date.parse(step.completed_at ?? now) - Date.parse(step.started_at);
  return Number.isNaN(ms) ? null : Math.max(0, ms);
};

/** `850 ms`, `12 s`, `4 min 05 s`, `2 h 03 min`: short enough for a bar label, exact enough to compare. */
export const formatDuration = (ms: number): string => {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  const h = Math.floor(m / 60);
  return `${h} h ${String(m % 60).padStart(2, '0')} min`;
};
