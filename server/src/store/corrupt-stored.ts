import { PlanHubError } from '@planhub/shared';

/**
 * Stored data that is not what the store wrote: a document, a hash entry, a workspace's bookkeeping record, a log
 * entry. Each is named by its key (and field or entry id) so an operator can find it.
 */

/** A raw hash field or entry id can be any length: the message keeps its start. */
const MAX_NAME_LENGTH = 200;
export const shortName = (name: string): string =>
  name.length > MAX_NAME_LENGTH ? `${name.slice(0, MAX_NAME_LENGTH - 1)}…` : name;

/** A stored record a call needs whole (a document, a file store's hash, set or workspace record). */
export const corruptRecord = (what: string, key: string, detail: string): PlanHubError =>
  new PlanHubError(
    'INTERNAL',
    `The stored ${what} ${key} is corrupt (${detail}); the call changed nothing. An operator must repair or ` +
      'delete it.',
  );

/** A hash entry a call needs (a fan-in's fill splices it into the JSON it writes and publishes). */
export const corruptHashEntry = (key: string, field: string, detail: string): PlanHubError =>
  corruptRecord('hash', key, `field ${shortName(field)}: ${detail}`);

/** A log entry a reader skips: the log's other events stay readable. */
export const corruptEvent = (log: string, id: string, detail: string): PlanHubError =>
  new PlanHubError(
    'INTERNAL',
    `The stored event ${shortName(id)} of the log ${log} is corrupt (${detail}); readers skip it until an operator ` +
      'repairs or deletes it.',
  );

/** A stored document's version as text: digits only, and small enough to be read back exactly. */
export const isVersionText = (text: string): boolean => /^(0|[1-9][0-9]{0,14})$/.test(text);
