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
