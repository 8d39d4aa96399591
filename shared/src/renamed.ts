/**
 * The names these exports had before dialect files were named by concept, kept so code written against an earlier
 * release still compiles. Each is the same value or type as its new name.
 */
import { INDEXED_PLAN_STATUSES, type IndexedPlanStatus } from './shapes/indexed-plan.ts';
import { TODO_LIST_ACTIONS, TODO_LIST_STATUSES, TodoListItemSchema, type TodoListItem } from './shapes/todo-list.ts';
import {
  PersistentTodoSchema,
  PlanModeSchema,
  PlanModeStepSchema,
  PlanModificationRequestSchema,
  type PersistentTodo,
  type PlanMode,
  type PlanModeStep,
  type PlanModificationRequest,
} from './tools/plan-mode-model.ts';

/** @deprecated use INDEXED_PLAN_STATUSES */
export const PLAN_004_STATUSES = INDEXED_PLAN_STATUSES;
/** @deprecated use IndexedPlanStatus */
export type Plan004Status = IndexedPlanStatus;
/** @deprecated use TODO_LIST_STATUSES */
export const TODO_001_STATUSES = TODO_LIST_STATUSES;
/** @deprecated use TODO_LIST_ACTIONS */
export const TODO_001_ACTIONS = TODO_LIST_ACTIONS;
/** @deprecated use TodoListItemSchema */
export const Todo001Schema = TodoListItemSchema;
/** @deprecated use TodoListItem */
export type Todo001 = TodoListItem;
/** @deprecated use PlanModeSchema */
export const Mode002Schema = PlanModeSchema;
/** @deprecated use PlanMode */
export type Mode002 = PlanMode;
/** @deprecated use PlanModeStepSchema */
export const PlanStep002Schema = PlanModeStepSchema;
/** @deprecated use PlanModeStep */
export type PlanStep002 = PlanModeStep;
/** @deprecated use PlanModificationRequestSchema */
export const PendingModification002Schema = PlanModificationRequestSchema;
/** @deprecated use PlanModificationRequest */
export type PendingModification002 = PlanModificationRequest;
/** @deprecated use PersistentTodoSchema */
export const TodoItem002Schema = PersistentTodoSchema;
/** @deprecated use PersistentTodo */
export type TodoItem002 = PersistentTodo;
