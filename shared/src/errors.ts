import { z } from 'zod';

export const ERROR_CODES = [
  'INVALID_ARGUMENT',
  'NOT_FOUND',
  'FAILED_PRECONDITION',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'UNAUTHENTICATED',
  'RESOURCE_EXHAUSTED',
  'UNAVAILABLE',
  'DEADLINE_EXCEEDED',
  'INTERNAL',
  /** The store lost its data (Redis wiped or restarted empty) since this node started: see docs/operations.md. */
  'DATA_LOSS',
] as const;

export const ErrorCodeSchema = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

export const ErrorShapeSchema = z.object({
  code: ErrorCodeSchema,
  message: z.string(),
  details: z.unknown().optional(),
});
export type ErrorShape = z.infer<typeof ErrorShapeSchema>;

/** Codes a client may retry with the same request_id without changing anything. */
export const RETRYABLE_CODES: ReadonlySet<ErrorCode> = new Set(['UNAVAILABLE', 'DEADLINE_EXCEEDED']);

/** The one error type of PlanHub: thrown by the core and tools, turned into the wire shape in one place. */
export class PlanHubError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;
  /**
   * The request_id a client's call carried, on an error the client gave up retrying: an UNAVAILABLE after a store
   * deadline may still have applied, and a retry with the same request_id applies it at most once.
   */
  readonly requestId: string | undefined;
  constructor(code: ErrorCode, message: string, details?: unknown, requestId?: string) {
    super(message);
    this.name = 'PlanHubError';
    this.code = code;
    this.details = details;
    this.requestId = requestId;
  }
  get retryable(): boolean {
    return RETRYABLE_CODES.has(this.code);
  }
  toShape(): ErrorShape {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

/**
 * `details.native` holds the fields a seed system's own refusal carries beside its message (seed 000's validation
 * gate answers `step_id`, `validation_required`, `has_received_outputs`); the SDK's execute() puts them into the
 * dialect's error shape, so a host written against upstream finds them where it looks.
 */
const NativeDetailsSchema = z.object({ native: z.record(z.string(), z.unknown()) });

/** `details.native` of a refusal, or undefined when it has none (which is not the same as an empty one for 002). */
export const nativeFieldsOf = (details: unknown): Record<string, unknown> | undefined => {
  const parsed = NativeDetailsSchema.safeParse(details);
  return parsed.success ? parsed.data.native : undefined;
};

export const fail = (code: ErrorCode, message: string, details?: unknown): never => {
  throw new PlanHubError(code, message, details);
};
