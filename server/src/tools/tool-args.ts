import type { ToolName } from '@planhub/shared';
import { TOOLS, TOOL_NAMES, argumentErrorMap, parseArguments } from '@planhub/shared';

/** Each tool's error map, made once rather than on every call. */
const ERROR_MAPS = Object.fromEntries(TOOL_NAMES.map((name) => [name, argumentErrorMap(name)])) as Record<
  ToolName,
  ReturnType<typeof argumentErrorMap>
>;

/** A tool's arguments parsed by its schema, refused in that tool's own words (dispatch, and plan_manage's actions). */
export const parseToolArgs = (tool: ToolName, args: unknown) =>
  parseArguments(TOOLS[tool].input, args, ERROR_MAPS[tool]);
