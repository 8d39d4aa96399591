/** What waiting needs of an ioredis client. */
export interface ReadyEvents {
  once(event: 'ready', listener: () => void): unknown;
}

/**
 * One listener per client, however many callers wait: a node started while Redis is away has every call waiting
 * here, and a listener each passed node's limit of 10 ("MaxListenersExceededWarning … 11 ready listeners added to
 * [Commander]", seen in a CI run).
 */
const nextReady = new WeakMap<ReadyEvents, Promise<void>>();
const readyOf = (redis: ReadyEvents): Promise<void> => {
  let ready = nextReady.get(redis);
  if (ready === undefined) {
    ready = new Promise<void>((resolve) =>
      redis.once('ready', () => {
        nextReady.delete(redis);
        resolve();
      }),
    );
    nextReady.set(redis, ready);
  }
  return ready;
};

/**
 * The store's client has no offline queue: a command right after startup would fail before the first connection.
 * Callers that may wait wait here (bounded by `ms`); once `ready()` says the client is up, nothing waits.
 */
export const firstReady = (redis: ReadyEvents, ms: number, ready: () => boolean): Promise<void> =>
  ready()
    ? Promise.resolve()
    : new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        void readyOf(redis).then(() => {
          clearTimeout(timer);
          resolve();
        });
      });
