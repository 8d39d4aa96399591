import type { Logger } from 'pino';
import { DATA_LOSS_MESSAGE, dataLossError } from '../data-loss.ts';
import type { DataLoss } from '../store.ts';

/** What the epoch needs of a Redis connection. */
export interface EpochClient {
  set(key: string, value: string, nx: 'NX'): Promise<unknown>;
  get(key: string): Promise<string | null>;
}

/**
 * The store's epoch: a random id written once into an empty store (`<prefix>:epoch`). Each node remembers the epoch
 * it found when it first reached Redis; a store that later shows another epoch, or none, was wiped (FLUSHALL, a
 * restart without persistence, a failover to an empty replica). From then on the node refuses every call with
 * DATA_LOSS, so nothing built on the lost state goes on as if it still existed: an answered request_id would
 * otherwise run again as new work, and a parent would wait forever for a dependency that is gone. It stays so until
 * the node restarts and adopts the store's current epoch (the operator's decision that the loss is known).
 */
export const createStoreEpoch = (options: { client: EpochClient; key: string; newId: () => string; log: Logger }) => {
  const { client, key, log } = options;
  let adopted: string | undefined;
  let lost: DataLoss | undefined;
  let checking: Promise<void> | undefined;

  /** Compares the epoch found with the one adopted; a difference is the loss. */
  const compare = (found: string | null) => {
    if (found === adopted || lost) return;
    lost = { since: Date.now(), message: DATA_LOSS_MESSAGE };
    log.error(
      { epoch_expected: adopted, epoch_found: found },
      `${found === null ? 'The store has no epoch any more' : 'The store has a different epoch'}: Redis was wiped ` +
        'or restarted empty since this node started, and the data it held is gone. Every call answers DATA_LOSS ' +
        'and /readyz answers 503 until this node is restarted (restart every PlanHub node once the loss is known).',
    );
  };

  const check = async () => {
    if (adopted === undefined) {
      // NX: the first node of an empty store writes it, every other node adopts what it finds.
      await client.set(key, options.newId(), 'NX');
      const found = await client.get(key);
      if (found !== null) adopted ??= found;
      return;
    }
    compare(await client.get(key));
  };

  return {
    /**
     * Reads the store's epoch (concurrent callers share one read) and throws DATA_LOSS once it is found changed.
     * Connection failures propagate as they are: an unreachable store is an outage, not a loss.
     */
    async verify(): Promise<void> {
      if (lost) throw dataLossError();
      checking ??= check().finally(() => (checking = undefined));
      await checking;
      if (lost) throw dataLossError();
    },
    /**
     * As verify, for an epoch read in the same script as the data it guards (no round trip of its own). Before the
     * node has adopted an epoch, or when none was read (`undefined`), it verifies.
     */
    async confirm(found: string | null | undefined): Promise<void> {
      if (adopted === undefined || found === undefined) return this.verify();
      compare(found);
      if (lost) throw dataLossError();
    },
    /** Throws DATA_LOSS if a loss was seen; no round trip. */
    refuseIfLost(): void {
      if (lost) throw dataLossError();
    },
    lost: (): DataLoss | undefined => lost,
  };
};

export type StoreEpoch = ReturnType<typeof createStoreEpoch>;
