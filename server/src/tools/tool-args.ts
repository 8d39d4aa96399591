import type { ToolName } from '@planhub/shared';
import type { z } from 'zod';
import { invalidArguments } from '../errors/to-error-shape.ts';
import {
  TOOLS,
  TOOL_NAMES,
  argumentErrorMap,
  optionalNullsOf,
  parseArguments,
  pythonTextArgs,
  textFieldsOf,
  withoutOptionalNulls,
  withoutWrongTypedOptionals,
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

/** Seed 000's text fields, which its Python upstream takes any value for (python-args.ts); none for the others. */
const PYTHON_TEXT = Object.fromEntries(
  TOOL_NAMES.map((name) => [name, TOOLS[name].dialect === '000' ? textFieldsOf(TOOLS[name].input) : new Set()]),
) as Record<ToolName, ReadonlySet<string>>;

/**
 * A tool's arguments parsed by its schema, or INVALID_ARGUMENT in that tool's own words (`refusedAs` names the tool
 * the caller called: plan_manage for its actions). What upstream reads more loosely (a null in an optional field as
 * left out; for seed 000 a number or object where text goes, as Python uses it; for seed 002 an optional field of the
 * wrong type as left out) is looked for only when the arguments as sent are refused, so a valid call pays nothing
 * for it; a refusal then quotes the arguments as loosened.
 */
export const parseToolArgs = <N extends ToolName>(tool: N, args: unknown, refusedAs: string = tool) => {
  const parsed = parseArguments(TOOLS[tool].input, args, ERROR_MAPS[tool]);
  if (parsed.success) return parsed.data as z.output<(typeof TOOLS)[N]['input']>;
  const loosened = pythonTextArgs(withoutOptionalNulls(args, NULL_PLANS[tool]), PYTHON_TEXT[tool]);
  const again = loosened === args ? parsed : parseArguments(TOOLS[tool].input, loosened, ERROR_MAPS[tool]);
  if (again.success) return again.data as z.output<(typeof TOOLS)[N]['input']>;
  const kept =
    TOOLS[tool].dialect === '002'
      ? withoutWrongTypedOptionals(loosened, NULL_PLANS[tool], again.error.issues)
      : loosened;
  const last = kept === loosened ? again : parseArguments(TOOLS[tool].input, kept, ERROR_MAPS[tool]);
  if (last.success) return last.data as z.output<(typeof TOOLS)[N]['input']>;
  throw invalidArguments(refusedAs, last.error, kept);
};
