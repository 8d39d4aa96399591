import { UsageError } from './exit-codes.ts';

/**
 * Refuses a flag given as "" (`--agent "$WHO"` with WHO unset): the node reads an empty id as one left out, so
 * `events --agent ""` would print every agent's events and `plan --agent ""` the caller's own plan, as if asked.
 */
export const refuseEmptyFlags = (flags: Readonly<Record<string, string | undefined>>): void => {
  for (const [flag, value] of Object.entries(flags))
    if (value !== undefined && value.trim() === '')
      throw new UsageError(`${flag} is empty; give a value, or leave the flag out.`);
};
