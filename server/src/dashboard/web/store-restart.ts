import type { TaskEvent, ToolArgs, ToolResult, WorkspaceSnapshot } from '@planhub/shared';
import { EVENT_TYPES, compareEventIds } from '@planhub/shared';
import type { DashboardState } from './state.ts';

/** A plan page's words for a plan of the history the node's store no longer has. */
export const RESTARTED_PLAN_TEXT =
  'This plan no longer exists: the node’s store restarted without its earlier history, so the server has nothing of ' +
  'it (see the line in the events feed). The overview shows what the server holds now.';

/** The id right after `id` in one log: a backward read before it starts with `id` itself. */
const nextId = (id: string): string => {
  const [ms, seq] = id.split('-');
  return `${ms}-${Number(seq) + 1}`;
};

/** What the page held before a break: the plans it knew, which the restarted store does not have. */
const plansOf = (state: DashboardState): string[] => [
  ...(state.model.snapshot?.agents.flatMap((a) => a.plans.map((p) => p.plan_id)) ?? []),
  ...state.feed.flatMap((e) => (e.source_plan_id && !state.beforeBreak(e) ? [e.source_plan_id] : [])),
];

type ReadEvents = (args: ToolArgs<'getTaskEvents'>) => Promise<ToolResult<'getTaskEvents'>>;

/**
 * Whether the node's log is another than the one the page followed: its store restarted without its history (the
 * memory store keeps nothing across a restart), so the events the page holds are of a log that no longer exists.
 * Asked on each reconnection, before subscribing, with the overview just read. The node's own signal, a push marked
 * `restarted_after`, comes only when the page's cursor lies past the new log's end, and only with the first event
 * pushed, which may be hours away; and the memory store's ids are the clock's, so a new log that an agent wrote to
 * before the page came back has ids above the cursor: the node resumes after it and marks nothing.
 *
 * In order, cheapest first: an overview older than what the page saw comes from another log (ids only grow along
 * one); a plan the page knew that the overview still lists proves the store kept its data (plan ids are random);
 * otherwise one read of the event the page would resume after tells, since a log that kept it still has it. A log
 * that trimmed it by retention (the page was away for more events than the log keeps) is taken for a restart only if
 * no plan the page knew is left either.
 */
export const restartedSince = async (
  state: DashboardState,
  snapshot: WorkspaceSnapshot,
  readEvents: ReadEvents,
): Promise<boolean> => {
  const cursor = state.resumeFrom;
  // Nothing seen of the earlier log: there is nothing to set apart from the new one.
  if (cursor === undefined) return false;
  const at = snapshot.last_event_id;
  if (at === null || compareEventIds(at, cursor) < 0) return true;
  const known = new Set(plansOf(state));
  if (snapshot.agents.some((a) => a.plans.some((p) => known.has(p.plan_id)))) return false;
  const read = await readEvents({ before_event: nextId(cursor), limit: 1, event_types: [...EVENT_TYPES] });
  const found = read.events.at(-1);
  if (found?.event_id !== cursor) return true;
  // The same id in another log (its clock set back) is another event.
  const seen = state.feed.at(-1);
  if (seen === undefined || seen.event_id !== cursor || state.beforeBreak(seen)) return false;
  return seen.event_type !== found.event_type || seen.timestamp !== found.timestamp;
};

interface StoreRestartDeps {
  state: DashboardState;
  /** The plans of the earlier history: their pages say they no longer exist, without asking the server. */
  forgetPlans: (planIds: readonly string[]) => void;
  changed: () => void;
}

/**
 * Starts the page on the node's new history. Unlike a data loss (data-loss.ts) this is not final: the node works,
 * with a store that started over. The feed keeps what it held, cut by a line (views/feed-cuts.ts) and without links;
 * the overview starts empty and is read again by the caller; plan pages of earlier plans say they are gone.
 */
export const createStoreRestart =
  ({ state, forgetPlans, changed }: StoreRestartDeps) =>
  (): void => {
    const plans = plansOf(state);
    state.breakHistory();
    forgetPlans(plans);
    changed();
  };

/** A pushed event without the node's restart mark, and the mark (docs/protocol.md, `restarted_after`). */
export const unmarked = (pushed: TaskEvent): { event: TaskEvent; restartedAfter: string | undefined } => {
  const marked = pushed as TaskEvent & { restarted_after?: unknown };
  if (typeof marked.restarted_after !== 'string') return { event: pushed, restartedAfter: undefined };
  const { restarted_after: restartedAfter, ...event } = marked;
  return { event, restartedAfter };
};
