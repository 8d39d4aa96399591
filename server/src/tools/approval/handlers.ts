import type { ToolHandlers } from '../context.ts';
import { decide } from './decide.ts';

export const approvalHandlers = {
  plan_approve: (ctx, args) => decide(ctx, args, true),
  plan_reject: (ctx, args) => decide(ctx, args, false),
} satisfies Partial<ToolHandlers>;
