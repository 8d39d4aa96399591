import type { EventType, TaskEvent } from '@planhub/shared';
import { EVENT_TYPES, WorkspaceModel, compareEventIds } from '@planhub/shared';
import type { ConnectionStatus, Identity } from './connection.ts';
import type { Route } from './router.ts';

export const FEED_LIMIT = 500;
/** Events the feed shows until the reader asks for more: a page left open all day keeps a bounded list. */
export const FEED_SHOWN = 200;
const FLASH_MS = 6_000;

export const FEED_GROUPS: Record<string, { label: string; match: (type: string) => boolean }> = {
  all: { label: 'All events', match: () => true },
  plans: { label: 'Plans', match: (t) => t.startsWith('plan_') },
  steps: { label: 'Steps', match: (t) => t.startsWith('step_') },
  dependencies: {
    label: 'Blocked / unblocked',
    match: (t) => t === 'step_blocked' || t === 'step_unblocked' || t === 'task_unblocked',
  },
  approvals: {
    label: 'Approvals',
    match: (t) => ['plan_approval_requested', 'plan_approved', 'plan_rejected', 'plan_modified'].includes(t),
  },
  lists: {
    label: 'Todos and tasks',
    match: (t) => t.startsWith('task_') || t === 'todos_updated' || t === 'mode_changed',
  },
  presence: {
    label: 'Presence and stalls',
    match: (t) => t === 'agent_online' || t === 'agent_offline' || t === 'step_stalled',
  },
};

/** The event types of a feed group, as getTaskEvents' event_types. */
export const groupTypes = (group: string): EventType[] =>
  EVENT_TYPES.filter((t) => (FEED_GROUPS[group] ?? FEED_GROUPS.all)!.match(t));

/** Events older than the live buffer, read page by page from the server for the current filter. */
export interface OlderEvents {
  /** Which filter they were read for; a new filter starts over. */
  key: string;
  events: TaskEvent[];
  /** Where the next page starts (before_event); null once the oldest retained event was reached. */
  nextBefore: string | null;
  /** Log entries the server looked at for them. */
  scanned: number;
  loading: boolean;
}

export interface Undecided {
  planId: string;
  text: string;
  /** Which decision it was: a plan's approval, or its pending modification's. */
  modification: boolean;
  /**
   * Set when the server refused the decision (applied nothing): it stays once the plan no longer waits, as the
   * reader's own decision was not recorded and someone else's was.
   */
  refused?: {
    approve: boolean;
    title: string;
    at: string;
    /** FAILED_PRECONDITION: nothing waited to be decided, so someone else decided first; the server's words are for agents. */
    lostRace: boolean;
  };
}

export interface StoreTrouble {
  /**
   * full: Redis is out of memory, so reads work but no decision (or anything else) can be recorded. events: calls
   * work, but the node's event subscription is down, so other agents' events reach the page late.
   */
  kind: 'unreachable' | 'full' | 'events' | 'lost';
  /** Browser clock. */
  since: number;
  message: string;
  /** Lost only: the newest event the page held when the loss was seen; the feed is cut there. */
  lastEventId?: string;
  /** Lost only: when /readyz answered ready again (the nodes were restarted), so a reload would now help. */
  backSince?: number;
}

/** Where the feed's history broke: the node's store restarted without it (store-restart.ts). */
export interface FeedBreak {
  /** The history that starts after it (DashboardState.history): events of earlier ones happened before it. */
  history: number;
  /** Browser clock. */
  since: number;
}

/** Everything the page shows; views read it, the controller changes it. */
export class DashboardState {
  /** A new one after each restart of the node's store without its history: the old one's cursor is another log's. */
  model = new WorkspaceModel();
  /** Oldest first; the feed view shows newest first. */
  feed: TaskEvent[] = [];
  /**
   * Which history of the workspace the page follows: 0, then one more at each restart of the node's store that lost
   * it. Ids compare only within one history (the new log's may be lower or higher than the old one's).
   */
  history = 0;
  /** Oldest first. */
  readonly breaks: FeedBreak[] = [];
  /**
   * The new history's latest events are still to be read after a break: set when a catch-up finds one, cleared only
   * by a read that lands. Nothing else would read them (the feed's newest event is the old history's, "Load older"
   * stops at a break, and the subscription starts after the overview's last event).
   */
  historyOwed = false;
  /** The history each feed event came from. */
  private readonly historyOfEvent = new WeakMap<TaskEvent, number>();
  status: ConnectionStatus = 'connecting';
  statusDetail: string | undefined;
  notice: { kind: 'error' | 'info'; text: string } | undefined;
  /**
   * A decision the reader pressed that was not (or maybe not) made, shown beside `notice` and kept across a
   * reconnect: until the reader decides or moves to another view, or the plan stops waiting for a decision.
   */
  undecided: Undecided | undefined;
  /**
   * What the node says of its store while the socket is up: unreachable (calls answer UNAVAILABLE until it is back),
   * full (out of memory: writes answer RESOURCE_EXHAUSTED until an operator frees memory) or lost (wiped or restarted empty: calls answer DATA_LOSS for good). A lost store stays lost for this page.
   */
  storeTrouble: StoreTrouble | undefined;
  /** A link that named another workspace than this page's (`#/ws/<other>/…`), until the route changes. */
  elsewhere: string | undefined;
  /** When a live connection dropped (browser clock), until the next one has caught up. */
  lostAt: number | undefined;
  filter = { group: 'all', agent: '' };
  route: Route = { view: 'overview' };
  older: OlderEvents | undefined;
  /** Events beyond FEED_SHOWN the reader asked to see with "Load older", for the filter `key`. */
  moreShown: { key: string; count: number } | undefined;
  /** `<plan_id>:<step_id>` → when its "just unblocked" highlight ends. */
  readonly flashes = new Map<string, number>();
  /** Finished plans the person expanded. */
  readonly expanded = new Set<string>();
  /** Decisions in flight, so a button is not pressed twice. */
  readonly deciding = new Set<string>();

  constructor(readonly identity: Identity) {}

  /** Adds an event to the feed unless it is already there; returns false for a duplicate. */
  addToFeed(event: TaskEvent): boolean {
    const last = this.feed.at(-1);
    if (last && this.historyOf(last) === this.history && compareEventIds(event.event_id, last.event_id) <= 0)
      return false;
    this.historyOfEvent.set(event, this.history);
    this.feed.push(event);
    if (this.feed.length > FEED_LIMIT) {
      this.feed.splice(0, this.feed.length - FEED_LIMIT);
      // Pages loaded with "Load older" ended where the live buffer began; they would now show a gap before it.
      this.older = undefined;
      this.moreShown = undefined;
    }
    if (event.event_type === 'step_unblocked' && event.source_plan_id && event.source_step_id)
      this.flashes.set(`${event.source_plan_id}:${event.source_step_id}`, Date.now() + FLASH_MS);
    return true;
  }

  /** The history an event came from; one the feed never held (a page read from the server) is the current one. */
  historyOf(event: TaskEvent): number {
    return this.historyOfEvent.get(event) ?? this.history;
  }

  /** Whether the event belongs to a history the node's store no longer has: its plan is gone, its log too. */
  beforeBreak(event: TaskEvent): boolean {
    return this.historyOf(event) < this.history;
  }

  /**
   * Whether what comes before the events the page holds is gone from the server: its store lost its data, or they
   * start in a history it restarted without. "Load older" then shows only what the page holds.
   */
  get olderGone(): boolean {
    const oldest = this.feed[0];
    return this.storeTrouble?.kind === 'lost' || (oldest !== undefined && this.beforeBreak(oldest));
  }

  /** Where a subscription resumes: the newest event seen of the current history, if any was. */
  get resumeFrom(): string | undefined {
    const last = this.feed.at(-1);
    return (last && !this.beforeBreak(last) ? last.event_id : undefined) ?? this.model.lastEventId;
  }

  /**
   * The node's store restarted without its history: the feed keeps what it holds as a record of the earlier one, and
   * the overview starts over empty until it is read again. Pages read with "Load older" came from the old log.
   */
  breakHistory(now = Date.now()): void {
    this.history += 1;
    this.breaks.push({ history: this.history, since: now });
    const snapshot = this.model.snapshot;
    this.model = new WorkspaceModel();
    if (snapshot) this.model.reset({ ...snapshot, agents: [], tasks: [], last_event_id: null });
    this.older = undefined;
    this.moreShown = undefined;
  }

  /** Read-only, as views call it while rendering: fadeFlashes() alone forgets ended highlights. */
  flashing(planId: string, stepId: string): boolean {
    return (this.flashes.get(`${planId}:${stepId}`) ?? 0) > Date.now();
  }

  get filterKey(): string {
    return JSON.stringify([this.filter.group, this.filter.agent.trim().toLowerCase()]);
  }

  /** Oldest first: the pages read from the server for this filter, then the live buffer's matches. */
  visibleFeed(): TaskEvent[] {
    const group = FEED_GROUPS[this.filter.group] ?? FEED_GROUPS.all;
    const text = this.filter.agent.trim().toLowerCase();
    const live = this.feed.filter(
      (e) =>
        group!.match(e.event_type) &&
        (text === '' ||
          [e.source_agent, e.source_plan_title, e.source_step_id, e.source_step_description, e.event_type].some((f) =>
            f?.toLowerCase().includes(text),
          ) ||
          JSON.stringify(e.payload).toLowerCase().includes(text)),
    );
    const older = this.older?.key === this.filterKey ? this.older.events : [];
    const first = live[0]?.event_id;
    return [...older.filter((e) => first === undefined || compareEventIds(e.event_id, first) < 0), ...live];
  }

  /** How many of visibleFeed() the feed shows, the newest: live events alone never raise it, the reader does. */
  get feedShown(): number {
    return FEED_SHOWN + (this.moreShown?.key === this.filterKey ? this.moreShown.count : 0);
  }

  /** Shows `count` more of the older events the page holds for the current filter. */
  showMore(count: number): void {
    const key = this.filterKey;
    this.moreShown = { key, count: (this.moreShown?.key === key ? this.moreShown.count : 0) + count };
  }

  /** Forgets the highlights that have ended; true if one did, so the views drawing it need a render. */
  fadeFlashes(now = Date.now()): boolean {
    let faded = false;
    for (const [key, until] of this.flashes)
      if (until <= now) {
        this.flashes.delete(key);
        faded = true;
      }
    return faded;
  }

  /** Only people decide approvals here; the server enforces the same rule (docs/invariants.md, invariant 6). */
  get canDecide(): boolean {
    return this.identity.role === 'user';
  }
}
