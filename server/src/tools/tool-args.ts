import type { ToolName } from '@planhub/shared';
import {
  TOOLS,
  TOOL_NAMES,
  argumentErrorMap,
  optionalNullsOf,
  parseArguments,
  withoutOptionalNulls,
} from '@planhub/shared';

/** Each tool's error map, made once rather than on every call. */
const ERROR_MAPS = Object.fromEntries(TOOL_NAMES.map((name) => [name, argumentErrorMap(name)])) as Record<
  ToolName,
  ReturnType<typeof argumentErrorMap>
>;

/** Where each tool's arguments may hold a null that reads as left out (optional-nulls.ts). */
const NULL_PLANS = Object.fromEntries(TOOL_NAMES.map((name) => [name, optionalNullsOf(TOOLS[name].input)])) as Record<
  ToolName,
  ReturnType<typeof optionalNullsOf>
>;

/**
 * A tool's arguments parsed by its schema, refused in that tool's own words (dispatch, and plan_manage's actions). A
 * null in an optional field reads as left out, as upstream reads it; it is looked for only when the arguments as
 * sent are refused, so a valid call pays nothing for it.
 */
export const parseToolArgs = (tool: ToolName, args: unknown) => {
  const parsed = parseArguments(TOOLS[tool].input, args, ERROR_MAPS[tool]);
  if (parsed.success) return parsed;
  const stripped = withoutOptionalNulls(args, NULL_PLANS[tool]);
  return stripped === args ? parsed : parseArguments(TOOLS[tool].input, stripped, ERROR_MAPS[tool]);
};
