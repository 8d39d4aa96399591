import type { Store } from '../../src/store/store.ts';

/** The store as it is, but for how many event-log entries its readers were handed, counted. */
export const countingEventReads = (store: Store): { store: Store; read: () => number } => {
  let read = 0;
  return {
    store: {
      ...store,
      readEvents: async (ws, range) => {
        const page = await store.readEvents(ws, range);
        read += page.length;
        return page;
      },
    },
    read: () => read,
  };
};
