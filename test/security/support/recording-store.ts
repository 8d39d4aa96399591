import type { Store } from '@planhub/server';

export interface StateSnapshot {
  /** Every document ever written in the workspace, by key, as JSON text (a deleted one is absent). */
  docs: Record<string, string>;
  /** The newest event id of the workspace log: the log only changes by appends, so this pins it. */
  lastEvent: string | null;
}

export interface RecordingStore {
  store: Store;
  /** How many commits applied in the workspace so far: the memory store changes state in commits only. */
  commits(workspace: string): number;
  /** Everything the workspace holds right now, read back through the store itself. */
  snapshot(workspace: string): Promise<StateSnapshot>;
}

/**
 * A real store (memory or Redis) passed through unchanged, that only remembers which document keys were ever
 * written per workspace, so a test can read back the whole state without knowing the server's key scheme.
 */
export const recordingStore = (inner: Store): RecordingStore => {
  const keys = new Map<string, Set<string>>();
  const applied = new Map<string, number>();
  const store: Store = Object.create(inner) as Store;
  Object.assign(store, {
    kind: inner.kind,
    load: inner.load.bind(inner),
    requestAnswer: inner.requestAnswer.bind(inner),
    readEvents: inner.readEvents.bind(inner),
    watch: inner.watch.bind(inner),
    ping: inner.ping.bind(inner),
    close: inner.close.bind(inner),
    commit: async (workspace: string, commit: Parameters<Store['commit']>[1]) => {
      const outcome = await inner.commit(workspace, commit);
      if (outcome.ok) {
        applied.set(workspace, (applied.get(workspace) ?? 0) + 1);
        const set = keys.get(workspace) ?? new Set<string>();
        for (const w of commit.writes) set.add(w.key);
        keys.set(workspace, set);
      }
      return outcome;
    },
  });
  return {
    store,
    commits: (workspace) => applied.get(workspace) ?? 0,
    async snapshot(workspace) {
      const known = [...(keys.get(workspace) ?? [])].sort();
      const loaded = known.length > 0 ? await inner.load(workspace, known) : [];
      const docs: Record<string, string> = {};
      known.forEach((key, i) => {
        const doc = loaded[i];
        if (doc && doc.version > 0) docs[key] = `${doc.version}:${JSON.stringify(doc.value)}`;
      });
      const [newest] = await inner.readEvents(workspace, { count: 1 });
      return { docs, lastEvent: newest?.event_id ?? null };
    },
  };
};
