export { llmMethods, type LlmMethods, type CallTool } from './llm-methods.ts';
export { localCatalog, type CatalogDialect } from './local-catalog.ts';
export {
  toOpenAITool,
  toAnthropicTool,
  toParameters,
  toToolCatalog,
  type AnthropicTool,
  type CatalogEntry,
  type CatalogOptions,
  type JsonSchemaObject,
  type OpenAITool,
  type ToolCatalog,
} from './formats.ts';
export { nativeError, type NativeError } from '@planhub/shared';
export { isBlockedCronCall, isCallBlocked, planModeBlockedMessage } from '@planhub/shared';
