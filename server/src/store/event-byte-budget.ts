import type { EventEnvelope } from '@planhub/shared';
import type { EventLog } from './memory-event-log.ts';

/**
 * The memory store's event logs held to a total size (JSON bytes) across workspaces, so a stream of large events
 * cannot exhaust the node's heap. Over budget, the oldest events go first from the log that just grew (the writer
 * pays), then from the largest other log; every log keeps its newest event so cursors stay meaningful. With no
 * budget (`Infinity`) it only counts, for the per-workspace quota.
 */
export const createEventByteBudget = (maxBytes: number) => {
  const logs = new Map<string, EventLog>();
  let total = 0;

  const dropOldest = (log: EventLog) => {
    total -= log.dropOldest();
  };

  return {
    /** JSON bytes of a workspace's events as kept (what its stored-byte quota counts). */
    bytes(workspace: string): number {
      return logs.get(workspace)?.bytes ?? 0;
    },
    /** Starts counting a workspace's log. */
    track(workspace: string, log: EventLog): void {
      logs.set(workspace, log);
    },
    /**
     * Appends events to `workspace`'s log, each with its JSON bytes, keeps its newest `keep` (the store's
     * retention), then trims logs until the total fits.
     */
    append(workspace: string, events: ReadonlyArray<{ event: EventEnvelope; bytes: number }>, keep: number): void {
      const log = logs.get(workspace);
      if (!log) return;
      for (const { event, bytes } of events) {
        log.append(event, bytes);
        total += bytes;
      }
      while (log.length > keep) dropOldest(log);
      while (total > maxBytes && log.length > 1) dropOldest(log);
      while (total > maxBytes) {
        let largest: EventLog | undefined;
        for (const other of logs.values())
          if (other.length > 1 && (largest === undefined || other.bytes > largest.bytes)) largest = other;
        if (largest === undefined) return;
        dropOldest(largest);
      }
    },
  };
};
