import type { ToolArgs, ToolName, ToolResult } from '@planhub/shared';
import { llmMethods, type LlmMethods } from './llm-methods.ts';

interface Caller {
  call<N extends ToolName>(tool: N, args: ToolArgs<N>): Promise<ToolResult<N>>;
}

/** Adds the LLM helpers (tools, execute, isToolBlocked) to a client, as non-enumerable methods. */
export const withLlm = <C extends Caller>(client: C): C & LlmMethods => {
  const methods = llmMethods((tool, args) => client.call(tool, args));
  for (const [key, value] of Object.entries(methods)) Object.defineProperty(client, key, { value, enumerable: false });
  return client as C & LlmMethods;
};
