import { z } from 'zod';

/**
 * Seed 002's argument refusals in upstream's words. Triggerfish's plan executor checks each argument's type itself
 * and answers "Error: plan.steps is required (non-empty array).", "Error: plan_step_complete requires a 'step_id'
 * argument (number).", …; hosts and models were tuned on those texts, so PlanHub's refusal starts with them.
 */

type Args = Record<string, unknown>;

const isObject = (value: unknown): value is Args => typeof value === 'object' && value !== null;
const isText = (value: unknown): value is string => typeof value === 'string';
const isFilledText = (value: unknown): boolean => isText(value) && value.length > 0;
const isNumber = (value: unknown): boolean => typeof value === 'number';

/**
 * The check runs before the schema: what upstream refuses becomes the call's only issue, without a path, so its text
 * leads the refusal as it is (upstream's final period is left out: the refusal goes on ". Check the arguments of
 * …"). Otherwise the schema validates as usual. The checks of the seed's tools only word refusals (the schema refuses
 * everything they refuse); plan_manage's also hold which arguments each action requires.
 */
export const withUpstreamWording = <S extends z.ZodType>(schema: S, check: (args: Args) => string | undefined) =>
  z.preprocess((value: z.input<S>, ctx) => {
    const text = isObject(value) && !Array.isArray(value) ? check(value) : undefined;
    if (text !== undefined) ctx.addIssue({ code: 'custom', message: text, input: value, path: [] });
    return value;
  }, schema);

/** The plan object's checks, in upstream's order (`validateImplementationPlan`). */
export const planObjectWording = (plan: Args): string | undefined => {
  if (!isText(plan.summary)) return 'plan.summary is required (string)';
  if (!isText(plan.approach)) return 'plan.approach is required (string)';
  if (!Array.isArray(plan.steps) || plan.steps.length === 0) return 'plan.steps is required (non-empty array)';
  for (const step of plan.steps as unknown[]) {
    if (!isObject(step)) return 'Each step must be an object';
    if (!isNumber(step.id)) return "Each step requires 'id' (number)";
    if (!isText(step.description)) return "Each step requires 'description' (string)";
  }
  return undefined;
};

/** `tool` is how upstream names the call in its refusal: `plan_exit`, or `plan_manage(action: 'exit')`. */
export const enterWording = (tool: string) => (args: Args) =>
  isFilledText(args.goal) ? undefined : `${tool} requires a 'goal' argument (string)`;

export const exitWording = (tool: string) => (args: Args) =>
  isObject(args.plan) ? planObjectWording(args.plan) : `${tool} requires a 'plan' argument (object)`;

export const completeWording = (tool: string) => (args: Args) =>
  isFilledText(args.summary) ? undefined : `${tool} requires a 'summary' argument (string)`;

export const modifyWording = (tool: string) => (args: Args) => {
  if (!isNumber(args.step_id)) return `${tool} requires 'step_id' (number)`;
  if (!isText(args.reason)) return `${tool} requires 'reason' (string)`;
  if (!isText(args.new_description)) return `${tool} requires 'new_description' (string)`;
  return undefined;
};

export const stepCompleteWording = (args: Args): string | undefined => {
  if (!isNumber(args.step_id)) return "plan_step_complete requires a 'step_id' argument (number)";
  if (!isText(args.verification_result)) return "plan_step_complete requires a 'verification_result' argument (string)";
  return undefined;
};

/** Upstream's consolidated tool (since 2026-03-05): plan_manage(action: enter | exit | approve | reject | complete | modify). */
export const PLAN_MANAGE_ACTIONS = ['enter', 'exit', 'approve', 'reject', 'complete', 'modify'] as const;
export type PlanManageAction = (typeof PLAN_MANAGE_ACTIONS)[number];

const ACTION_WORDING: Record<PlanManageAction, ((args: Args) => string | undefined) | undefined> = {
  enter: enterWording("plan_manage(action: 'enter')"),
  exit: exitWording("plan_manage(action: 'exit')"),
  approve: undefined,
  reject: undefined,
  complete: completeWording("plan_manage(action: 'complete')"),
  modify: modifyWording("plan_manage(action: 'modify')"),
};

const isAction = (value: string): value is PlanManageAction =>
  (PLAN_MANAGE_ACTIONS as readonly string[]).includes(value);

export const planManageWording = (args: Args): string | undefined => {
  const { action } = args;
  if (!isText(action) || action.length === 0) return "plan_manage requires an 'action' parameter (string)";
  if (!isAction(action))
    return (
      `unknown action "${action.slice(0, 64)}" for plan_manage. ` + `Valid actions: ${PLAN_MANAGE_ACTIONS.join(', ')}`
    );
  return ACTION_WORDING[action]?.(args);
};
