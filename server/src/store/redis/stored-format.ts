import { PlanHubError } from '@planhub/shared';
import type { Logger } from 'pino';
import type { FormatConflict } from '../store.ts';

/**
 * The layout of what this build stores in Redis, as one number (`<prefix>:format`). Raise it with any change that a
 * build before it would misread or undo (a renamed key, a document split differently, a script's new record): each
 * node raises the stored number to its own at every connection, and a node that finds a higher one refuses every
 * call instead of misreading or corrupting what a newer build wrote. A change that older builds read correctly keeps
 * the number, so adjacent builds still run side by side. docs/operations.md (Shutdown and upgrades) says what an
 * operator sees; docs/state-model.md lists what each number changed.
 */
export const STORED_FORMAT = 1;

/** What the client needs: one script, and a read. */
export interface FormatClient {
  eval(script: string, numKeys: number, key: string, own: string): Promise<unknown>;
  get(key: string): Promise<string | null>;
}

// Raises the stored number to this build's, never lowers it, and answers what is stored then. A value that is not a
// whole number is left as it is, for the node to refuse by name.
const RAISE = `local v = redis.call('GET', KEYS[1])
local n = v and tonumber(v)
if not v or (n and n == math.floor(n) and n >= 0 and n < tonumber(ARGV[1])) then
  redis.call('SET', KEYS[1], ARGV[1])
  return ARGV[1]
end
return v`;

export const formatError = (conflict: FormatConflict) =>
  new PlanHubError('FAILED_PRECONDITION', conflict.message, { kind: 'store_format_newer', found: conflict.found });

/** Adopted at every connection and checked at every ping; a conflict stays until the node restarts. */
export const createStoredFormat = (options: { client: FormatClient; key: string; log: Logger; own?: number }) => {
  const { client, key, log } = options;
  const own = options.own ?? STORED_FORMAT;
  let conflict: FormatConflict | undefined;

  const judge = (found: unknown) => {
    // None: a wiped store, which the epoch reports; the next connection writes it again.
    if (conflict || found === null || found === undefined) return;
    const text = typeof found === 'string' ? found : JSON.stringify(found);
    const numeric = /^\d+$/.test(text);
    const n = Number(text);
    if (numeric && n <= own) return;
    conflict = {
      since: Date.now(),
      found: text.slice(0, 40),
      message: numeric
        ? `This PlanHub node is older than the data in its store: ${key} says stored format ${n}, written by a ` +
          `newer PlanHub, and this node reads format ${own}. It refuses every call rather than misread or corrupt ` +
          'that data. Connect again through the load balancer (an upgraded node answers), or ask whoever runs ' +
          'PlanHub to upgrade this node; retrying on this connection does not help.'
        : `The store's format record ${key} holds ${JSON.stringify(text.slice(0, 40))}, not a format number: it was ` +
          'written by something other than PlanHub. This node refuses every call rather than guess what the store ' +
          'holds; whoever runs PlanHub must check that key.',
    };
    log.error(
      { key, format_found: conflict.found, format_own: own },
      numeric
        ? 'A newer PlanHub wrote this store: this node refuses every call and /readyz answers 503 ' +
            'store_format_newer until it is upgraded (docs/operations.md, Shutdown and upgrades)'
        : 'The store format record is not a number: this node refuses every call until it is fixed',
    );
  };

  return {
    /** Raises the stored format to this build's (or finds a newer one); run at every connection. */
    adopt: async (): Promise<void> => judge(await client.eval(RAISE, 1, key, String(own))),
    /** Reads it again (a newer node may have started since); rides on the pings. */
    check: async (): Promise<void> => judge(await client.get(key)),
    refuseIfNewer(): void {
      if (conflict) throw formatError(conflict);
    },
    conflict: (): FormatConflict | undefined => conflict,
  };
};

export type StoredFormat = ReturnType<typeof createStoredFormat>;
