import type { z } from 'zod';
import * as core000 from './dialect-000-core.ts';
import * as cross000 from './dialect-000-cross.ts';
import * as d001 from './dialect-001.ts';
import * as d002 from './dialect-002.ts';
import * as d003 from './dialect-003.ts';
import * as d004 from './dialect-004.ts';
import * as planhub from './planhub.ts';

/** Every tool of the flat namespace, by name. Adding a dialect = one spread here. */
export const TOOLS = {
  ...core000,
  ...cross000,
  ...d001,
  ...d002,
  ...d003,
  ...d004,
  ...planhub,
} as const;

export type Tools = typeof TOOLS;
export type ToolName = keyof Tools;
/** What a caller passes (defaults optional). */
export type ToolArgs<N extends ToolName> = z.input<Tools[N]['input']>;
/** What a handler receives after parsing (defaults applied). */
export type ToolParsedArgs<N extends ToolName> = z.output<Tools[N]['input']>;
export type ToolResult<N extends ToolName> = z.output<Tools[N]['output']>;

export const TOOL_NAMES = Object.keys(TOOLS) as ToolName[];

export const isToolName = (name: string): name is ToolName => Object.hasOwn(TOOLS, name);
