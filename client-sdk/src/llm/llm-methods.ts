import type { NativeError, ToolArgs, ToolName, ToolResult } from '@planhub/shared';
import {
  canonicalToolName,
  PlanHubError,
  PLAN_MODE_BLOCKED_TOOLS,
  TOOLS,
  fromStrictArgs,
  isCallBlocked,
  isToolName,
  nativeError,
  nativeFieldsOf,
  planModeBlockedMessage,
  toolCatalog,
} from '@planhub/shared';
import { toParameters, toToolCatalog, type CatalogOptions, type ToolCatalog } from './formats.ts';
import { localCatalog, type CatalogDialect } from './local-catalog.ts';

/** What the LLM helpers need of a client: one typed call. */
export type CallTool = <N extends ToolName>(tool: N, args: ToolArgs<N>) => Promise<ToolResult<N>>;

/** What an agent host plugs into its model loop. None uses `this`: pass them around detached (e.g. as callbacks). */
export interface LlmMethods {
  /**
   * The tools of one dialect (all of them without one) in OpenAI and Anthropic function-calling formats;
   * `{ strict: true }` makes the OpenAI definitions strict-mode ones.
   */
  tools: (dialect?: CatalogDialect, options?: CatalogOptions) => ToolCatalog;
  /**
   * Runs a tool call the model made and answers the way that dialect's own tools do: the result on success, the
   * dialect's native error shape on failure (never a throw for a refused call). `args` may be the JSON string a
   * model API hands over, and may be a strict-mode call (nulls for omitted fields, JSON strings for free-form values).
   */
  execute: {
    <N extends ToolName>(name: N, args: ToolArgs<N> | string): Promise<ToolResult<N> | NativeError>;
    (name: string, args: unknown): Promise<unknown>;
  };
  /**
   * Seed 002: whether a host must refuse this call now. While the agent explores in plan mode that is write_file,
   * cron_create and cron_delete, and upstream's `cron` when its `action` is create or delete (pass the call's `args`,
   * or the JSON string the model API hands over; without them a `cron` call is not blocked). A call that could never
   * be blocked is answered at once; for the others the server is asked each time, as a user's decision on another
   * connection can lift the block at any moment.
   */
  isToolBlocked: (name: string, args?: unknown) => Promise<boolean>;
  /**
   * Seed 002: upstream's tool result for a call the host must refuse now (`Tool "write_file" is blocked in plan mode.
   * Use plan_manage(action: "exit") …`), to hand the model instead of running the tool; undefined when it may run.
   */
  blockedToolResult: (name: string, args?: unknown) => Promise<string | undefined>;
  /**
   * Seed 001's reminder for the caller's todo list: the `<system-reminder>` block to inject before each model
   * request, as upstream's hook: the gentle preamble unless `todo` was among the last three tools run through
   * execute(); undefined when it was and the list is empty.
   */
  reminder: (options?: { quietMs?: number }) => Promise<string | undefined>;
}

const parseArgs = (args: unknown): { ok: true; value: unknown } | { ok: false; reason: string } => {
  if (typeof args !== 'string') return { ok: true, value: args ?? {} };
  if (args.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(args) as unknown };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
};

/** A strict-mode call back in the tool's own terms; unknown tools are left for the server to name. */
const fromStrict = (name: string, args: unknown): unknown => {
  const entry = isToolName(name) ? toolCatalog().find((t) => t.name === name) : undefined;
  return entry ? fromStrictArgs(toParameters(entry.input_schema), args) : args;
};

const executeWith =
  (call: CallTool) =>
  async (called: string, args: unknown): Promise<unknown> => {
    const name = canonicalToolName(called);
    const dialect = isToolName(name) ? TOOLS[name].dialect : undefined;
    const parsed = parseArgs(args);
    if (!parsed.ok)
      return nativeError(
        dialect,
        `The arguments of ${name} are not valid JSON (${parsed.reason}); send a JSON object.`,
        undefined,
        name,
      );
    try {
      // The server checks the name and the arguments and answers in words the model can act on.
      return await (call as (tool: string, args: unknown) => Promise<unknown>)(name, fromStrict(name, parsed.value));
    } catch (err) {
      if (err instanceof PlanHubError) return nativeError(dialect, err.message, nativeFieldsOf(err.details), name);
      throw err;
    }
  };

/** Upstream's hook looks at the last three tool calls to decide whether the todo tool was "used recently". */
const RECENT_TOOLS = 3;

export const llmMethods = (call: CallTool): LlmMethods => {
  const recent: string[] = [];
  const execute = executeWith(call);
  const isToolBlocked = async (name: string, args?: unknown): Promise<boolean> => {
    // Hosts ask before every tool they run: most calls can be answered without a round trip.
    const parsed = parseArgs(args);
    // Only a call plan mode could ever block is worth a plan_status round trip.
    if (!isCallBlocked(PLAN_MODE_BLOCKED_TOOLS, name, parsed.ok ? parsed.value : undefined)) return false;
    const { mode } = await call('plan_status', {});
    return mode === 'plan';
  };
  return {
    tools: (dialect, options) => toToolCatalog(localCatalog(dialect), options),
    execute: (name: string, args: unknown) => {
      recent.push(name);
      if (recent.length > RECENT_TOOLS) recent.shift();
      return execute(name, args);
    },
    isToolBlocked,
    blockedToolResult: async (name, args) =>
      (await isToolBlocked(name, args)) ? planModeBlockedMessage(name) : undefined,
    reminder: async (options = {}) => {
      // Only execute() sees the model's tool calls; before the first one, the server judges by the list's last write.
      const answer = await call('todoReminder', {
        ...(options.quietMs !== undefined ? { quiet_ms: options.quietMs } : {}),
        ...(recent.length > 0 ? { used_recently: recent.includes('todo') } : {}),
      });
      return answer.reminder ?? undefined;
    },
  };
};
