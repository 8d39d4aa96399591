import { fail } from '@planhub/shared';
import type { ToolHandlers } from '../context.ts';
import { applyStepChange } from './step-change.ts';

const depthOf = (value: unknown): number =>
  value !== null && typeof value === 'object'
    ? 1 + Math.max(0, ...Object.values(value as Record<string, unknown>).map(depthOf))
    : 0;

/**
 * Completes a step with structured output. The output is what every waiting agent receives (keyed
 * "<agent_id>:<step_id>" and by `provides`), delivered in the same transaction as the completion.
 */
export const completeStepWithOutput: ToolHandlers['completeStepWithOutput'] = (ctx, args) => {
  const { outputBytes, outputDepth } = ctx.services.config.limits;
  const bytes = Buffer.byteLength(JSON.stringify(args.output));
  if (bytes > outputBytes)
    fail(
      'RESOURCE_EXHAUSTED',
      `output is ${bytes} bytes; the limit is ${outputBytes}. Hand over a summary and put bulk data in files.`,
    );
  if (depthOf(args.output) > outputDepth)
    fail('RESOURCE_EXHAUSTED', `output nests deeper than ${outputDepth} levels; flatten it.`);
  return applyStepChange(ctx, args.plan_id, {
    step_id: args.step_id,
    status: 'completed',
    output: args.output,
    ...(args.result !== undefined ? { result: args.result } : {}),
    ...(args.provides !== undefined ? { provides: args.provides } : {}),
  });
};
