import type { z } from 'zod';
import * as planCoreTools from './plans-core.ts';
import * as crossAgentTools from './plans-cross-agent.ts';
import * as taskEventTools from './task-events.ts';
import * as todoListTools from './todo-list.ts';
import * as planModeTools from './plan-mode.ts';
import * as planManageTools from './plan-manage.ts';
import * as taskListTools from './task-list.ts';
import * as indexedPlanTools from './indexed-plans.ts';
import * as planhub from './planhub.ts';

/** Every tool of the flat namespace, by name. Adding a dialect = one spread here. */
export const TOOLS = {
  ...planCoreTools,
  ...taskEventTools,
  ...crossAgentTools,
  ...todoListTools,
  ...planModeTools,
  ...planManageTools,
  ...taskListTools,
  ...indexedPlanTools,
  ...planhub,
} as const;

export type Tools = typeof TOOLS;
export type ToolName = keyof Tools;
/** What a caller passes (defaults optional). */
export type ToolArgs<N extends ToolName> = z.input<Tools[N]['input']>;
/** What a handler receives after parsing (defaults applied). */
export type ToolParsedArgs<N extends ToolName> = z.output<Tools[N]['input']>;
/** What a client reads (getTaskEvents' events as the typed union). */
export type ToolResult<N extends ToolName> = z.output<Tools[N]['output']>;
/** What a handler answers on the wire (getTaskEvents' events as stored envelopes, read by the client). */
export type ToolAnswer<N extends ToolName> = z.input<Tools[N]['output']>;

export const TOOL_NAMES = Object.keys(TOOLS) as ToolName[];

export const isToolName = (name: string): name is ToolName => Object.hasOwn(TOOLS, name);

/**
 * Names a seed's host shows its model for a tool, beside the tool's own: supyagent's tool runner names a function
 * `<script>__<function>`, so a model driven by it calls `plan__create_plan`.
 */
export const TOOL_ALIASES: Readonly<Record<string, ToolName>> = {
  plan__create_plan: 'create_plan',
  plan__update_plan: 'update_plan',
  plan__get_plan: 'get_plan',
};

/** The catalog's name for `name`: the tool an alias stands for, or `name` as it is. */
export const canonicalToolName = (name: string): string =>
  Object.hasOwn(TOOL_ALIASES, name) ? (TOOL_ALIASES[name] as ToolName) : name;
