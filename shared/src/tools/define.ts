import type { z } from 'zod';
import type { Dialect } from '../model.ts';

/** One tool of the flat namespace: its dialect, what the model reads, and the schemas of its input and result. */
export interface ToolDefinition<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  name: string;
  dialect: Dialect | 'planhub';
  description: string;
  input: I;
  output: O;
  /** Read-only tools are allowed for dashboards and never written to the request log. */
  readOnly: boolean;
}

export const defineTool = <const N extends string, I extends z.ZodType, O extends z.ZodType>(
  def: ToolDefinition<I, O> & { name: N },
): ToolDefinition<I, O> & { name: N } => def;
