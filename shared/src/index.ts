export * from './errors.ts';
export * from './native-error.ts';
export * from './connect-refusal.ts';
export * from './disconnect-reason.ts';
export * from './protocol.ts';
export * from './secret-rule.ts';
export * from './events.ts';
export * from './model.ts';
export * from './limits.ts';
export * from './ttl.ts';
export * from './working-dir-path.ts';
export * from './tools/define.ts';
export * from './tools/common.ts';
export * from './tools/catalog.ts';
export * from './tools/json-catalog.ts';
export * from './tools/optional-nulls.ts';
export * from './tools/python-args.ts';
export * from './tools/wrong-type-optionals.ts';
export * from './tools/workspace-summary.ts';
export * from './view/workspace-model.ts';
export * from './view/coalesce.ts';
export * from './view/retrying.ts';
export * from './view/step-history.ts';
export * from './subscription.ts';
export * from './render/plan-text.ts';
export * from './render/progress.ts';
export * from './render/todo-box.ts';
export * from './render/reminder.ts';
export * from './render/neutralize.ts';
export * from './render/python-json.ts';
export * from './render/python-text.ts';
export * from './render/subagent-event.ts';
export * from './shapes/todo-list.ts';
export * from './shapes/task-list.ts';
export * from './shapes/indexed-plan.ts';
export {
  PLAN_MODE_BLOCKED_TOOLS,
  isBlockedCronCall,
  isCallBlocked,
  planModeBlockedMessage,
  PlanModeSchema,
  ImplementationPlanSchema,
  PlanModeStepSchema,
  PlanModificationRequestSchema,
  PersistentTodoSchema,
  type PlanMode,
  type ImplementationPlan,
  type PlanModeStep,
  type PlanModificationRequest,
  type PersistentTodo,
} from './tools/plan-mode-model.ts';
export * from './issue-text.ts';
export * from './event-payloads.ts';
export * from './unblocked-by.ts';
export * from './renamed.ts';
