import type { EventEnvelope, NewEvent } from '@planhub/shared';

/**
 * The one storage interface. State is a set of JSON documents per workspace, each with a version; a call reads
 * the documents it needs, computes the change in pure code, and commits it with a compare-and-set on every version
 * it read. The commit also appends the call's events to the workspace log and publishes them, in one atomic step.
 */
export interface LoadedDoc {
  value: unknown;
  /** 0 when the document does not exist. */
  version: number;
}

export interface Commit {
  /** Documents whose version must be unchanged for the commit to apply. */
  reads: ReadonlyArray<{ key: string; version: number }>;
  /** New values; `null` deletes the document. */
  writes: ReadonlyArray<{ key: string; value: unknown }>;
  events: readonly NewEvent[];
  /** When set, the answer is remembered for retries, and the commit conflicts if the request was already applied. */
  request?: { agent_id: string; request_id: string; answer: unknown; ttl_ms: number };
}

export type CommitOutcome = { ok: true; events: EventEnvelope[] } | { ok: false; reason: 'conflict' };

export interface EventRange {
  /** Exclusive lower bound; omit to read the newest `count` events. */
  after?: string;
  /** Exclusive upper bound (without `after`): the newest `count` events older than it, for paging backwards. */
  before?: string;
  count: number;
}

export type EventListener = (event: EventEnvelope) => void;

export interface Store {
  readonly kind: 'memory' | 'redis';
  /** The Redis store's command connection (an ioredis client), for features that keep their own shared counters
   * (rate limits, connection counts); undefined on the memory store. */
  readonly redis?: unknown;
  load(workspace: string, keys: readonly string[]): Promise<LoadedDoc[]>;
  commit(workspace: string, commit: Commit): Promise<CommitOutcome>;
  /** The remembered answer of an applied request, if any. */
  requestAnswer(workspace: string, agentId: string, requestId: string): Promise<{ answer: unknown } | undefined>;
  /** Events of the workspace log in order: after a cursor, or the newest `count`. */
  readEvents(workspace: string, range: EventRange): Promise<EventEnvelope[]>;
  /** Every event committed by any node, pushed to this node in log order per workspace. */
  onEvent(listener: EventListener): () => void;
  ping(): Promise<void>;
  close(): Promise<void>;
}
