import type { PlanHubError } from '@planhub/shared';
import { corruptRecord } from '../corrupt-stored.ts';
import type { z } from 'zod';

/**
 * One kind of stored document, declared once: how its key is built, what it must look like (zod), which version of
 * its layout this code writes, and how a document of an earlier layout is read. Every read of the kind goes through
 * `decode`, so a document that is not what it should be answers INTERNAL naming its key instead of being misread.
 */
export interface DocumentKind<T, A extends unknown[]> {
  readonly name: string;
  readonly version: number;
  key(...args: A): string;
  /** The stored value as this code uses it, or undefined for a missing document. */
  decode(key: string, raw: unknown): T | undefined;
}

/** What a failed check says first: the path and zod's message of its first issue. */
export const issueDetail = (error: z.ZodError): string => {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'value'}: ${issue.message}` : 'invalid';
};

export const corruptDocument = (key: string, detail: string): PlanHubError => corruptRecord('document', key, detail);

export const defineDocument = <T, A extends unknown[]>(spec: {
  name: string;
  version: number;
  key: (...args: A) => string;
  schema: z.ZodType<T>;
  /** Turns a document of an earlier layout into this one (documents carry no version of their own: the shape tells). */
  migrate?: (raw: unknown) => unknown;
}): DocumentKind<T, A> => {
  /**
   * Stored values already found valid: a long document's text is parsed once per node into one frozen value
   * (store/parsed-json.ts), which cannot have changed since, so a plan header read by every fan-in into its plan
   * is checked once, not on every read.
   */
  const valid = new WeakSet<object>();
  return {
    name: spec.name,
    version: spec.version,
    key: spec.key,
    decode(key, raw) {
      if (raw === undefined || raw === null) return undefined;
      if (typeof raw === 'object' && valid.has(raw)) return raw as T;
      const value = spec.migrate ? spec.migrate(raw) : raw;
      const checked = spec.schema.safeParse(value);
      if (!checked.success) throw corruptDocument(key, `${spec.name}: ${issueDetail(checked.error)}`);
      if (value === raw && typeof raw === 'object' && Object.isFrozen(raw)) valid.add(raw);
      // The value as stored, not zod's copy: a field this schema does not name is kept, never silently dropped.
      return value as T;
    },
  };
};
