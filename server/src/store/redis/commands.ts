import { readFileSync } from 'node:fs';
import type { CommandConnection } from './connect.ts';
import type { LoadReplyEntry } from './redis-replies.ts';

/** The store's Lua scripts, by ioredis command name (EVALSHA, falling back to EVAL after a Redis restart). */
const SCRIPTS = { phLoad: 'load.lua', phCommit: 'commit.lua', phCollections: 'collections.lua' } as const;

export interface StoreCommands {
  /**
   * load.lua: `numKeys` keys (documents, then hashes and sorted sets as its arguments say) → flat
   * `[v1, d1, v2, d2, …, hgetall1, …, range1, …]`.
   */
  phLoad(numKeys: number, ...keysAndArgs: string[]): Promise<LoadReplyEntry[]>;
  /** commit.lua: every key it touches, then the commit as JSON and the texts it names (see its header). */
  phCommit(numKeys: number, ...keysAndArgs: string[]): Promise<string[]>;
  /** collections.lua: sets, then hashes, then counters, then their two counts → one reply per key. */
  phCollections(numKeys: number, ...keysAndArgs: string[]): Promise<LoadReplyEntry[]>;
}

let sources: Record<keyof typeof SCRIPTS, string> | undefined;

const loadSources = () =>
  (sources ??= {
    phLoad: readFileSync(new URL(SCRIPTS.phLoad, import.meta.url), 'utf8'),
    phCommit: readFileSync(new URL(SCRIPTS.phCommit, import.meta.url), 'utf8'),
    phCollections: readFileSync(new URL(SCRIPTS.phCollections, import.meta.url), 'utf8'),
  });

/** Registers the scripts on a connection (once per connection). */
export const defineStoreCommands = (client: CommandConnection): CommandConnection & StoreCommands => {
  for (const [name, lua] of Object.entries(loadSources())) client.defineCommand(name, { lua });
  return client as CommandConnection & StoreCommands;
};
