import type { CallRequest } from '@planhub/shared';
import { PlanHubError, RequestIdSchema } from '@planhub/shared';

/**
 * The call's request_id and its arguments without it. The socket protocol carries request_id beside `args`; MCP
 * carries it among them, and a client written for one often sends the other's shape. A request_id found in `args`
 * used to be dropped with the other keys a tool does not know, so a retry of that call acted twice: it is taken as
 * the call's own now. When both are there, the one in `args` wins: client libraries (this project's SDK before 0.2,
 * the Python example) stamp an id of their own beside the arguments of every call and keep it across their own
 * retries, while the one in `args` is the caller's, kept across the caller's retries too.
 */
export const callRequestId = (request: CallRequest): { requestId?: string; args: Record<string, unknown> } => {
  const { args, request_id: envelope } = request;
  if (!Object.hasOwn(args, 'request_id')) return envelope === undefined ? { args } : { requestId: envelope, args };
  const { request_id: inArgs, ...rest } = args;
  const parsed = RequestIdSchema.safeParse(inArgs);
  if (!parsed.success)
    throw new PlanHubError(
      'INVALID_ARGUMENT',
      'args.request_id must be a string of 1 to 128 characters (use a UUID), or be left out. It makes the call ' +
        'idempotent: a retry with the same one returns the first answer.',
      { issues: [{ path: 'request_id', message: 'request_id must be a string of 1 to 128 characters' }] },
    );
  return { requestId: parsed.data, args: rest };
};
