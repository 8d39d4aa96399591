import { describe, expect, it } from 'vitest';
import { argumentErrorMap, parseArguments, plainIssues } from '../src/issue-text.ts';
import { TOOLS } from '../src/tools/catalog.ts';

/** The plain sentences a tool's malformed arguments are refused with (parsed as a call's arguments are). */
const sentences = (tool: keyof typeof TOOLS, args: unknown): string[] => {
  const parsed = parseArguments(TOOLS[tool].input, args, argumentErrorMap(tool));
  if (parsed.success) throw new Error(`${tool} accepted ${JSON.stringify(args)}`);
  return plainIssues(parsed.error.issues, args, tool).map((i) => i.message);
};

describe("argument refusals in the seed systems' words", () => {
  it('names a missing or empty event_types and depends_on as upstream does', () => {
    expect(sentences('subscribeToTasks', {})).toEqual(['event_types is required']);
    expect(sentences('subscribeToTasks', { event_types: [] })).toEqual(['event_types is required']);
    expect(sentences('addDependentStep', { step_id: 'step_1' })).toEqual([
      'depends_on is required and must not be empty',
    ]);
    expect(sentences('addDependentStep', { step_id: 'step_1', depends_on: [] })).toEqual([
      'depends_on is required and must not be empty',
    ]);
  });

  it('names a number that is not finite (a JSON 1e999 parses to Infinity) rather than its type', () => {
    expect(sentences('getTaskEvents', { limit: Infinity })[0]).toMatch(/^limit must be a number \(got Infinity\)/);
    expect(sentences('getTaskEvents', { limit: Number.NaN })[0]).toMatch(/^limit must be a number \(got NaN\)/);
  });

  it('says once that each dependency needs agent_id and step_id, however many are missing', () => {
    expect(sentences('addDependentStep', { step_id: 's', depends_on: [{}, { agent_id: 'a' }] })).toEqual([
      'Each dependency must have agent_id and step_id',
    ]);
  });

  it("keeps a wording to its own tool: getTaskEvents' optional event_types is only told to be an array", () => {
    expect(sentences('getTaskEvents', { event_types: 'step_completed' })).toEqual([
      'event_types must be an array (got string)',
    ]);
    expect(sentences('createPlan', { title: 'T', steps: 'a, b' })).toEqual([
      'steps must be a non-empty array (got string)',
    ]);
  });

  it("answers seed 001's {} and seed 002's missing list with upstream's text", () => {
    expect(sentences('todo', {})).toEqual(['Unknown action: None. Valid actions: create, update, list']);
    expect(sentences('todo_write', {})).toEqual(["todo_write requires a 'todos' argument (array)"]);
    expect(sentences('todo_write', { todos: 'x' })).toEqual(["todo_write requires a 'todos' argument (array)"]);
    expect(sentences('todo_write', { todos: null })).toEqual(["todo_write requires a 'todos' argument (array)"]);
  });

  it("answers a seed-000 argument that upstream's `if not value` reads as missing: '<field> is required'", () => {
    expect(sentences('setStepStatus', { step_id: 'step_1' })).toEqual(['status is required']);
    expect(sentences('completePlan', {})).toEqual(['status is required']);
    for (const blank of [null, ''] as const) {
      expect(sentences('createPlan', { title: blank, steps: ['a'] })).toEqual(['title is required']);
      expect(sentences('setStepStatus', { step_id: blank, status: 'completed' })).toEqual(['step_id is required']);
      expect(sentences('setStepStatus', { step_id: 's', status: blank })).toEqual(['status is required']);
      expect(sentences('completePlan', { status: blank })).toEqual(['status is required']);
      expect(sentences('addStep', { description: blank })).toEqual(['description is required']);
      expect(sentences('completeStepWithOutput', { step_id: blank, output: {} })).toEqual(['step_id is required']);
      expect(sentences('unsubscribe', { subscription_id: blank })).toEqual(['subscription_id is required']);
    }
    expect(sentences('createPlan', { title: '   ', steps: ['a'] })).toEqual(['title is required']);
    // Upstream checks output with `is None`: only null is missing; an output that is not an object is still wrong.
    expect(sentences('completeStepWithOutput', { step_id: 's', output: null })).toEqual(['output is required']);
    expect(sentences('completeStepWithOutput', { step_id: 's', output: 'done' })).toEqual([
      'output must be a record (got string)',
    ]);
  });

  it("asks addDependentStep for upstream's step_id first, and names the seed's description form", () => {
    const dep = [{ agent_id: 'w', step_id: 's' }];
    const stepIdFirst =
      'step_id is required (the step of yours that should wait), or pass description instead to create a new step ' +
      'that waits';
    expect(sentences('addDependentStep', { depends_on: dep })).toEqual([stepIdFirst]);
    expect(sentences('addDependentStep', { step_id: '', depends_on: dep })[0]).toMatch(/^step_id is required/);
    expect(sentences('addDependentStep', {})).toEqual([`${stepIdFirst}; depends_on is required and must not be empty`]);
    expect(sentences('addDependentStep', { description: '', depends_on: dep })).toEqual(['description is required']);
    expect(sentences('addDependentStep', { step_id: 's', depends_on: [{ agent_id: null, step_id: 's' }] })).toEqual([
      'Each dependency must have agent_id and step_id',
    ]);
  });

  it("prints seed 001's action as upstream's Python does, and seed 003's missing taskId as the empty id", () => {
    expect(sentences('todo', { action: null })).toEqual(['Unknown action: None. Valid actions: create, update, list']);
    expect(sentences('todo', { action: false })).toEqual([
      'Unknown action: False. Valid actions: create, update, list',
    ]);
    expect(sentences('todo', { action: 3 })).toEqual(['Unknown action: 3. Valid actions: create, update, list']);
    // Python's str() of the float json.loads reads from 0.00001 (JavaScript's String() writes "0.00001").
    expect(sentences('todo', { action: 0.00001 })).toEqual([
      'Unknown action: 1e-05. Valid actions: create, update, list',
    ]);
    expect(sentences('TaskGet', {})).toEqual([
      'TaskGet validate task ID failed, err: invalid format: (taskId is required)',
    ]);
  });
});

describe('inputs upstream accepts', () => {
  it("takes createPlan steps that are empty strings, and TaskCreate's empty or blank subject", () => {
    expect(TOOLS.createPlan.input.safeParse({ title: 'T', steps: ['', ' '] }).success).toBe(true);
    expect(TOOLS.TaskCreate.input.safeParse({ subject: '', description: 'd' }).success).toBe(true);
    expect(TOOLS.TaskCreate.input.parse({ subject: '  ', description: 'd' }).subject).toBe('  ');
  });

  it("reads getTaskEvents' timeout as upstream's float(): numbers and numeric strings as such, anything else as 0", () => {
    const timeoutOf = (timeout: unknown) => TOOLS.getTaskEvents.input.parse({ timeout }).timeout;
    expect([timeoutOf(5), timeoutOf(45), timeoutOf(-1), timeoutOf(undefined)]).toEqual([5, 45, -1, 0]);
    expect([timeoutOf('2.5'), timeoutOf(' 3 '), timeoutOf(true)]).toEqual([2.5, 3, 1]);
    expect([timeoutOf('soon'), timeoutOf(null), timeoutOf({}), timeoutOf([5]), timeoutOf('')]).toEqual([0, 0, 0, 0, 0]);
  });
});

describe('parsing a call’s arguments', () => {
  it('gives what zod gives with the error map, for valid and invalid input alike', () => {
    const schema = TOOLS.setStepStatus.input;
    const map = argumentErrorMap('setStepStatus');
    for (const args of [
      { step_id: 'step_1', status: 'completed', result: 'done' },
      { step_id: 'step_1', status: 'finished' },
      { status: 'completed' },
      'not an object',
    ]) {
      const parsed = parseArguments(schema, args, map);
      const direct = schema.safeParse(args, { error: map });
      expect([parsed.success, parsed.data, parsed.error?.issues]).toEqual([
        direct.success,
        direct.data,
        direct.error?.issues,
      ]);
    }
  });
});
