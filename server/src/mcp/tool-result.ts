import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CallAck, ErrorShape } from '@planhub/shared';
import { TOOLS, isToolName, nativeError, nativeFieldsOf } from '@planhub/shared';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where a refusal's wire error ({ code, message, details }) rides, for hosts that act on the code. */
export const ERROR_META = 'planhub/error';

/**
 * A refusal as the tool's own dialect reports one to its model, the shape the SDK's execute() gives (000 `{ error }`
 * with upstream's fields beside it, 001 `{ message }`, 004 `{ ok: false, error }`, 002 and 003 a string), so the
 * text starts with upstream's message; flagged as an error so the host shows it as one.
 */
export const errorResult = (error: ErrorShape, tool?: string): CallToolResult => {
  const dialect = tool !== undefined && isToolName(tool) ? TOOLS[tool].dialect : undefined;
  const native = nativeError(dialect, error.message, nativeFieldsOf(error.details), tool);
  return {
    isError: true,
    content: [{ type: 'text', text: typeof native === 'string' ? native : JSON.stringify(native) }],
    ...(typeof native === 'string' ? {} : { structuredContent: native }),
    _meta: { [ERROR_META]: error },
  };
};

/** The result as JSON text for every host, and as structuredContent when it is an object (MCP requires one). */
export const successResult = (result: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(result) }],
  ...(isRecord(result) ? { structuredContent: result } : {}),
});

export const ackResult = (ack: CallAck, tool?: string): CallToolResult =>
  ack.ok ? successResult(ack.result) : errorResult(ack.error, tool);

/** Adds advice for the model to an object result (arrays and scalars stay as they are). */
export const withNext = (ack: CallAck, next: string | undefined): CallAck =>
  next !== undefined && ack.ok && isRecord(ack.result) ? { ok: true, result: { ...ack.result, next } } : ack;

/**
 * About what a result costs to send: its JSON text, twice when it also goes as structuredContent (the same value,
 * serialized again by the SDK). Read off the text already made, so measuring costs nothing.
 */
export const answerBytes = (result: CallToolResult): number => {
  const first = result.content[0];
  const text = first?.type === 'text' ? first.text.length : 0;
  return result.structuredContent === undefined ? text : 2 * text;
};
