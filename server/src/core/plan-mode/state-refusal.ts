import type { ErrorCode } from '@planhub/shared';
import { fail } from '@planhub/shared';

/**
 * A refusal for the state the agent is in, which upstream answers as a JSON object (`{"error":"No active plan"}`,
 * `{"error":"Already in plan mode","current_goal":…}`) where its argument refusals are "Error: …" strings.
 * `details.native` carries upstream's fields beside the message (none for most); its presence is what tells the
 * SDK's execute() to answer the JSON string.
 */
export const stateRefusal = (code: ErrorCode, message: string, fields: Record<string, unknown> = {}): never =>
  fail(code, message, { native: fields });
