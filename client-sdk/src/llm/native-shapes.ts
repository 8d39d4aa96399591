import type { Dialect } from '@planhub/shared';

/**
 * A failure the way each seed's own tools report it to the model (docs/dialects.md, "Errors, per dialect"): 000 (and PlanHub's own
 * tools) `{ error }`, 001 `{ message }`, 004 `{ ok: false, error }`, 002 and 003 a plain string.
 */
export type NativeError = { error: string } | { message: string } | { ok: false; error: string } | string;

export const nativeError = (dialect: Dialect | 'planhub' | undefined, message: string): NativeError => {
  switch (dialect) {
    case '001':
      return { message };
    case '002':
      return `Error: ${message}`;
    case '003':
      return message;
    case '004':
      return { ok: false, error: message };
    default:
      return { error: message };
  }
};
