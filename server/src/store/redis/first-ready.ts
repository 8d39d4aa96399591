/** What waiting needs of an ioredis client. */
export interface ReadyEvents {
  once(event: 'ready', listener: () => void): unknown;
  off(event: 'ready', listener: () => void): unknown;
}

/**
 * The store's client has no offline queue: a command right after startup would fail before the first connection.
 * Callers that may wait wait here (bounded by `ms`); once `ready()` says the client is up, nothing waits.
 */
export const firstReady = (redis: ReadyEvents, ms: number, ready: () => boolean) =>
  ready()
    ? Promise.resolve()
    : new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          redis.off('ready', done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        redis.once('ready', done);
      });
