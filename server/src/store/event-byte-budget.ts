import type { EventEnvelope } from '@planhub/shared';
import { serializedBytes } from '@planhub/shared';

/**
 * The memory store's event logs held to a total size (JSON bytes) across workspaces, so a stream of large events
 * cannot exhaust the node's heap. Over budget, the oldest events go first from the log that just grew (the writer
 * pays), then from the largest other log; every log keeps its newest event so cursors stay meaningful. With no
 * budget (`Infinity`) it only counts, for the per-workspace quota.
 */
export const createEventByteBudget = (maxBytes: number) => {
  const sizes = new WeakMap<EventEnvelope, number>();
  const logs = new Map<string, { events: EventEnvelope[]; bytes: number }>();
  let total = 0;

  const dropOldest = (log: { events: EventEnvelope[]; bytes: number }) => {
    const gone = log.events.shift();
    const size = gone === undefined ? 0 : (sizes.get(gone) ?? 0);
    log.bytes -= size;
    total -= size;
  };

  return {
    /** JSON bytes of a workspace's events as kept (what its stored-byte quota counts). */
    bytes(workspace: string): number {
      return logs.get(workspace)?.bytes ?? 0;
    },
    /** Starts counting a workspace's log (the array the store appends to). */
    track(workspace: string, events: EventEnvelope[]): void {
      logs.set(workspace, { events, bytes: 0 });
    },
    /** Events the store trimmed by count. */
    removed(workspace: string, events: readonly EventEnvelope[]): void {
      const log = logs.get(workspace);
      for (const e of events) {
        const size = sizes.get(e) ?? 0;
        if (log) log.bytes -= size;
        total -= size;
      }
    },
    /** Events just appended to `workspace`'s log; trims logs in place until the total fits. */
    added(workspace: string, events: readonly EventEnvelope[]): void {
      const log = logs.get(workspace);
      if (!log) return;
      for (const e of events) {
        const size = serializedBytes(e);
        sizes.set(e, size);
        log.bytes += size;
        total += size;
      }
      while (total > maxBytes && log.events.length > 1) dropOldest(log);
      while (total > maxBytes) {
        let largest: { events: EventEnvelope[]; bytes: number } | undefined;
        for (const other of logs.values())
          if (other.events.length > 1 && (largest === undefined || other.bytes > largest.bytes)) largest = other;
        if (largest === undefined) return;
        dropOldest(largest);
      }
    },
  };
};
