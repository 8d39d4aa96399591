import { PlanHubError } from '@planhub/shared';

/** The exit codes of every command, listed in `planhub --help` and the README. */
export const EXIT = {
  ok: 0,
  /** The node refused the call or the credentials (bad plan id, not allowed, unauthenticated, …). */
  refused: 1,
  /** The command line itself is wrong: unknown command or option, missing argument. */
  usage: 2,
  /** No node answered in time. */
  unavailable: 3,
} as const;

export const EXIT_CODES_HELP = `Exit codes:
  0  done
  1  refused: the node refused the call or the credentials
  2  usage: unknown command or option, missing or invalid argument
  3  unavailable: no PlanHub node answered in time`;

/** A mistake on the command line, found after parsing (a missing plan id, a --limit out of range). */
export class UsageError extends Error {}

export const exitCodeOf = (err: unknown): number => {
  if (err instanceof UsageError) return EXIT.usage;
  if (err instanceof PlanHubError)
    return err.code === 'UNAVAILABLE' || err.code === 'DEADLINE_EXCEEDED' ? EXIT.unavailable : EXIT.refused;
  return EXIT.refused;
};
