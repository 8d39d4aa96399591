import type { Table } from './file-state.ts';
import { SEP } from './file-keys.ts';

/** The separator stores written before round 18 used (file-keys.ts says why it changed). */
const OLD_SEP = '\u0000';
const FORMAT_ENTRY = 'keys';
const CURRENT_FORMAT = '2';

/** A key as it was written: the engine reads a NUL-separated key of 64 or more characters back as its parts. */
const writtenKey = (key: unknown): string => (Array.isArray(key) ? key.map(String).join(OLD_SEP) : String(key));

/**
 * Rewrites every key written with the old separator, in one write transaction the caller runs (all or nothing: a
 * crash leaves the old keys, and the next start upgrades again), then records the format so later starts skip the
 * scan. Values are left as they are.
 */
export const upgradeKeyFormat = (tables: readonly Table[], format: Table): void => {
  if (format.get(FORMAT_ENTRY) === CURRENT_FORMAT) return;
  for (const table of tables) {
    const moves: Array<{ key: unknown; value: string; renamed: string }> = [];
    for (const { key, value } of table.getRange({})) {
      const written = writtenKey(key);
      if (written.includes(OLD_SEP)) moves.push({ key, value, renamed: written.replaceAll(OLD_SEP, SEP) });
    }
    for (const move of moves) {
      table.remove(move.key as string);
      table.put(move.renamed, move.value);
    }
  }
  format.put(FORMAT_ENTRY, CURRENT_FORMAT);
};
