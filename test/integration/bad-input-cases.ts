/** The malformed calls bad-input.test.ts sends, each with the refusal it must get. */

const MB = 'x'.repeat(1_000_000);

export interface Case {
  name: string;
  /** What is emitted as the "call" payload. */
  payload: unknown;
  code: string;
  /** The message must say what to fix. */
  message: RegExp;
}

/** Run against agent "main", whose current plan is in progress with step_1 completed and step_2, step_3 pending. */
export const CASES: Case[] = [
  {
    name: 'an unknown tool',
    payload: { tool: 'deletePlan', args: {} },
    code: 'NOT_FOUND',
    message: /Unknown tool "deletePlan".*Valid tools:.*createPlan.*setStepStatus/,
  },
  {
    name: 'no tool at all',
    payload: { args: {} },
    code: 'INVALID_ARGUMENT',
    message: /^tool is required\. A call is \{ tool, args, request_id\? \}/,
  },
  {
    // Named by its tool: there is no tool named "call" (the refusal used to say "Check the arguments of call").
    name: 'arguments that are a list',
    payload: { tool: 'getPlanStatus', args: [1] },
    code: 'INVALID_ARGUMENT',
    message: /^args must be a record \(got array\)\. Check the arguments of getPlanStatus against its schema/,
  },
  {
    name: 'a missing required field',
    payload: { tool: 'setStepStatus', args: { status: 'completed' } },
    code: 'INVALID_ARGUMENT',
    message: /^step_id is required\..*setStepStatus/,
  },
  {
    name: 'createPlan without steps',
    payload: { tool: 'createPlan', args: { title: 'T' } },
    code: 'INVALID_ARGUMENT',
    message: /^steps must be a non-empty array\..*createPlan/,
  },
  {
    name: 'createPlan with an empty step list',
    payload: { tool: 'createPlan', args: { title: 'T', steps: [] } },
    code: 'INVALID_ARGUMENT',
    message: /^steps must be a non-empty array\./,
  },
  {
    name: 'a provides name that would set a prototype',
    payload: { tool: 'completeStepWithOutput', args: { step_id: 'step_2', output: { x: 1 }, provides: '__proto__' } },
    code: 'INVALID_ARGUMENT',
    message: /provides name may not be "__proto__"/,
  },
  {
    name: 'a number where a string belongs',
    // Not seed 000's tools: jaato's Python uses such a value as its text (optional-nulls.test.ts).
    payload: { tool: 'update_plan', args: { plan_id: 2, step_index: 0 } },
    code: 'INVALID_ARGUMENT',
    message: /^plan_id must be a string \(got number\)/,
  },
  {
    name: 'a string where an array belongs',
    payload: { tool: 'createPlan', args: { title: 'T', steps: 'one, two' } },
    code: 'INVALID_ARGUMENT',
    message: /^steps must be a non-empty array \(got string\)/,
  },
  {
    name: 'a status outside the enum',
    payload: { tool: 'setStepStatus', args: { step_id: 'step_2', status: 'done' } },
    code: 'INVALID_ARGUMENT',
    message: /^Invalid status: done\. Must be one of: in_progress, completed, failed, skipped/,
  },
  {
    name: 'a blank step description',
    payload: { tool: 'addStep', args: { description: '   ' } },
    code: 'INVALID_ARGUMENT',
    // Upstream's words for an empty description; a blank one, which PlanHub trims, reads the same.
    message: /^description is required\./,
  },
  {
    name: 'a 1 MB step description',
    payload: { tool: 'addStep', args: { description: MB } },
    code: 'INVALID_ARGUMENT',
    message: /description.*4000/,
  },
  {
    name: 'a 1 MB result',
    payload: { tool: 'setStepStatus', args: { step_id: 'step_2', status: 'completed', result: MB } },
    code: 'INVALID_ARGUMENT',
    message: /result.*20000/,
  },
  {
    name: 'a 1 MB tool name',
    payload: { tool: MB, args: {} },
    code: 'INVALID_ARGUMENT',
    message: /tool.*64/,
  },
  {
    name: 'a 1 MB request_id',
    payload: { tool: 'addStep', args: { description: 'd' }, request_id: MB.slice(0, 500_000) },
    code: 'INVALID_ARGUMENT',
    message: /request_id.*128/,
  },
  {
    name: 'a request_id that is not a string',
    payload: { tool: 'addStep', args: { description: 'd' }, request_id: 42 },
    code: 'INVALID_ARGUMENT',
    message: /request_id.*string/,
  },
  {
    name: 'an unknown step id',
    payload: { tool: 'setStepStatus', args: { step_id: 'step_9', status: 'completed' } },
    code: 'NOT_FOUND',
    message: /^Step not found: step_9\. Plan \w+ has no such step; steps are step_1, step_2, step_3/,
  },
  {
    name: 'addStep after an unknown step',
    payload: { tool: 'addStep', args: { description: 'd', after_step_id: 'step_42' } },
    code: 'NOT_FOUND',
    message: /^Step not found: step_42\..*step_1, step_2, step_3/,
  },
  {
    name: 'an unknown plan id',
    payload: { tool: 'setStepStatus', args: { plan_id: 'zzzzzzzz', step_id: 'step_2', status: 'completed' } },
    code: 'NOT_FOUND',
    message: /zzzzzzzz does not exist.*getPlanStatus/,
  },
  {
    name: 'a second startPlan on a started plan',
    payload: { tool: 'startPlan', args: {} },
    code: 'FAILED_PRECONDITION',
    message: /^Plan already started\. Proceed with setStepStatus\./,
  },
  {
    name: 'a second plan while one is started',
    payload: { tool: 'createPlan', args: { title: 'Again', steps: ['a'] } },
    code: 'FAILED_PRECONDITION',
    message: /^An active plan already exists: 'Target' \(2 pending, 0 in progress\)\. Do NOT recreate.*addStep/s,
  },
  {
    // "\ud800" alone cannot be stored as UTF-8: it once reached a URI-encoded key and answered INTERNAL.
    name: 'a step id holding a lone surrogate',
    payload: {
      tool: 'completeStepWithOutput',
      args: { step_id: '\ud800', output: { summary: 's', approach: 'a', steps: [{ id: 1, description: 'd' }] } },
    },
    code: 'INVALID_ARGUMENT',
    message: /^call\.args\.step_id is not valid Unicode text.*Send well-formed text/,
  },
  {
    name: 'a request_id holding a lone surrogate',
    payload: { tool: 'addStep', args: { description: 'd' }, request_id: 'r\udc00' },
    code: 'INVALID_ARGUMENT',
    message: /^call\.request_id is not valid Unicode text/,
  },
  {
    name: 'args that are a string',
    payload: { tool: 'getPlanStatus', args: 'plan please' },
    code: 'INVALID_ARGUMENT',
    message: /args/,
  },
  {
    name: 'args that are an array',
    payload: { tool: 'addStep', args: ['d'] },
    code: 'INVALID_ARGUMENT',
    message: /args/,
  },
  { name: 'args that are null', payload: { tool: 'addStep', args: null }, code: 'INVALID_ARGUMENT', message: /args/ },
  { name: 'a call that is a string', payload: 'addStep', code: 'INVALID_ARGUMENT', message: /call/ },
  { name: 'a call that is null', payload: null, code: 'INVALID_ARGUMENT', message: /call/ },
  { name: 'a call that is a number', payload: 7, code: 'INVALID_ARGUMENT', message: /A call is \{ tool, args/ },
];
