import { checkShape } from '../../limits/json-shape.ts';
import type { ToolHandlers } from '../context.ts';
import { applyStepChange } from './step-change.ts';

/**
 * Completes a step with structured output. The output is what every waiting agent receives (keyed
 * "<agent_id>:<step_id>" and by `provides`), delivered in the same transaction as the completion.
 */
export const completeStepWithOutput: ToolHandlers['completeStepWithOutput'] = (ctx, args) => {
  const { outputBytes, outputDepth } = ctx.services.config.limits;
  checkShape('output', args.output, { maxBytes: outputBytes, maxDepth: outputDepth });
  return applyStepChange(ctx, 'completeStepWithOutput', args.plan_id, {
    step_id: args.step_id,
    status: 'completed',
    output: args.output,
    ...(args.result !== undefined ? { result: args.result } : {}),
    ...(args.provides !== undefined ? { provides: args.provides } : {}),
  }).then((answer) =>
    Object.assign(answer, {
      output: args.output,
      message: 'Step completed with output. Dependent steps will be notified.',
    }),
  );
};
