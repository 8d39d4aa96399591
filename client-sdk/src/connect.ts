import type { ToolArgs, ToolName, ToolResult } from '@planhub/shared';
import { PlanHubError, TOOL_NAMES } from '@planhub/shared';
import { PlanHubClientCore } from './client.ts';
import type { CallOptions, ConnectOptions } from './connect-options.ts';
import { llmMethods, type LlmMethods } from './llm/llm-methods.ts';

/** What the client itself answers to: no tool, whatever its name, can take one of these over. */
export type ReservedName = keyof PlanHubClientCore | keyof LlmMethods;

type ToolMethods = {
  [N in Exclude<ToolName, ReservedName>]: (args: ToolArgs<N>, options?: CallOptions) => Promise<ToolResult<N>>;
};

export type PlanHubClient = PlanHubClientCore & ToolMethods & LlmMethods;

/**
 * Adds one method per tool name to `client`, skipping every name the client already answers to (its own methods
 * and fields, the LLM helpers, Object's): a tool named `close` or `on` stays reachable as `client.call('close', …)`
 * and can never replace the client's method. Returns the names that got a method.
 */
export const attachToolMethods = (client: PlanHubClientCore, names: readonly string[]): string[] => {
  const attached: string[] = [];
  for (const name of names) {
    if (name in client) continue;
    Object.defineProperty(client, name, {
      value: (args: unknown, callOptions?: CallOptions) =>
        (client.call as (tool: string, args: unknown, options?: CallOptions) => Promise<unknown>)(
          name,
          args,
          callOptions,
        ),
      enumerable: false,
    });
    attached.push(name);
  }
  return attached;
};

/**
 * Plain JS can leave out `agentId`; the node would then refuse `agent_id`, a name the caller never wrote. With a
 * token the node takes the agent from it, and `agentId` is not sent.
 */
const checkIdentity = (options: ConnectOptions) => {
  const agentId: unknown = options.agentId;
  if (options.token === undefined && (typeof agentId !== 'string' || agentId === ''))
    throw new PlanHubError(
      'INVALID_ARGUMENT',
      `connect() needs agentId, the agent this client acts as (e.g. { agentId: 'parent' }), or a token that names ` +
        `it; got ${agentId === undefined ? 'none' : JSON.stringify(agentId)}.`,
    );
};

/** A client that is not connected yet: subscribe to its `state` first, then `open()` it. */
export const createClient = (options: ConnectOptions): PlanHubClient => {
  checkIdentity(options);
  const core = new PlanHubClientCore(options);
  // tools(), execute(), isToolBlocked(), reminder(): what an LLM host plugs in (client-sdk/src/llm/). They come
  // first so that no tool name can claim them.
  for (const [key, value] of Object.entries(llmMethods((tool, args) => core.call(tool, args))))
    Object.defineProperty(core, key, { value, enumerable: false });
  attachToolMethods(core, TOOL_NAMES);
  return core as PlanHubClient;
};

/**
 * Connects and returns a client with one typed method per tool. Settles within `connectTimeoutMs` (default 10 s):
 * rejects with UNAVAILABLE naming the URLs tried, or with the node's refusal (UNAUTHENTICATED, PERMISSION_DENIED).
 */
export const connect = async (options: ConnectOptions): Promise<PlanHubClient> => {
  const client = createClient(options);
  await client.open();
  return client;
};
