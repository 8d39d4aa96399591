import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CallAck, ErrorShape } from '@planhub/shared';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A refusal the model can act on: `CODE: message`, flagged as an error so the host shows it as one. */
export const errorResult = (error: ErrorShape): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: `${error.code}: ${error.message}` }],
});

/** The result as JSON text for every host, and as structuredContent when it is an object (MCP requires one). */
export const successResult = (result: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(result) }],
  ...(isRecord(result) ? { structuredContent: result } : {}),
});

export const ackResult = (ack: CallAck): CallToolResult =>
  ack.ok ? successResult(ack.result) : errorResult(ack.error);

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
