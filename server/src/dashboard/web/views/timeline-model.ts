import type { StepSummary, WorkspaceSnapshot } from '@planhub/shared';
import { stepDuration } from '@planhub/shared';

/** A started or ended step as the timeline draws it: plain values, so the lanes' JSON is all a drawing depends on. */
export interface TimelineBar {
  planId: string;
  stepId: string;
  description: string;
  status: StepSummary['status'];
  stalled: boolean;
  startedAt: string | null;
  completedAt: string | null;
  /** Where it begins (ms): its start, or its end for a step never reported in progress (a dot). */
  start: number;
}

export interface TimelineLane {
  agentId: string;
  bars: TimelineBar[];
}

/** Per agent, its steps that started or ended; agents with none are left out. */
export const timelineLanes = (snapshot: WorkspaceSnapshot): TimelineLane[] =>
  snapshot.agents
    .map((agent) => ({
      agentId: agent.agent_id,
      bars: agent.plans.flatMap((plan) =>
        plan.steps
          .filter((s) => s.started_at || s.completed_at)
          .map((step) => ({
            planId: plan.plan_id,
            stepId: step.id,
            description: step.description,
            status: step.status,
            stalled: step.stalled === true,
            startedAt: step.started_at ?? null,
            completedAt: step.completed_at ?? null,
            start: Date.parse((step.started_at ?? step.completed_at)!),
          })),
      ),
    }))
    .filter((lane) => lane.bars.length > 0);

/**
 * What a full drawing shows; the clock is not in it. Equal shapes draw the same elements, and only their places,
 * lengths and durations move with time, so those are updated in place.
 */
export const timelineShape = (lanes: TimelineLane[]): string => JSON.stringify(lanes);

export interface TimelineScale {
  from: number;
  span: number;
}

/** How long a bar's step was worked on, up to `now` while it runs (0 for a dot). */
export const tookOf = (bar: TimelineBar, now: number): number =>
  stepDuration({ started_at: bar.startedAt, completed_at: bar.completedAt }, new Date(now).toISOString()) ?? 0;

/** From the first start to the last end, where a step still running ends now: one running step rescales every bar. */
export const timelineScale = (lanes: TimelineLane[], now: number): TimelineScale => {
  const bars = lanes.flatMap((lane) => lane.bars);
  const from = Math.min(...bars.map((b) => b.start));
  const to = Math.max(...bars.map((b) => (b.completedAt ? Date.parse(b.completedAt) : now)));
  return { from, span: Math.max(1, to - from) };
};

/**
 * A bar's least width in px: its horizontal padding (views.css), which a percentage of a narrow lane can be less
 * than. Set in px, it is the same on a phone as on a wide screen.
 */
const MIN_BAR_PX = 8;

/** A bar's or a dot's CSS left and width (a dot has none), each kept inside its lane so none adds sideways scroll. */
export const placeOf = (bar: TimelineBar, scale: TimelineScale, now: number): { left: string; width?: string } => {
  const left = ((bar.start - scale.from) / scale.span) * 100;
  if (!bar.startedAt) return { left: `calc(${left}% - ${(left / 100) * 10}px)` };
  const at = Math.min(left, 100);
  const width = Math.min((tookOf(bar, now) / scale.span) * 100, 100 - at);
  // A bar widened to its least width ends at the lane's edge at the latest: it moves left by what it gained.
  return { left: `min(${at}%, 100% - ${MIN_BAR_PX}px)`, width: `max(${width}%, ${MIN_BAR_PX}px)` };
};
