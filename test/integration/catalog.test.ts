import type { CatalogEntry, NativeError, PlanHubClient, ToolCatalog, ToolResult } from '@planhub/client-sdk';
import { TOOLS, isToolName } from '@planhub/shared';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { EXAMPLES, SEED_002_PLAN } from './catalog-examples.ts';

/**
 * What an LLM host receives: every tool's JSON Schema (valid, accepting the seeds' calls, refusing malformed ones),
 * the OpenAI and Anthropic tool formats, and execute()'s answers in each dialect's native shape.
 */

// ajv (draft 2020-12, what zod emits) is the independent check: the schemas come from zod, so validating them with
// zod again would prove nothing about what a model host's validator will accept.
const ajv = new Ajv2020({ strict: true, allErrors: true });
const compile = (schema: unknown) => ajv.compile(schema as object);

let h: Harness;
let client: PlanHubClient;
let served: CatalogEntry[];

beforeAll(async () => {
  h = await startHarness('memory');
  client = await h.client('catalog');
  served = await client.listTools({});
});
afterAll(async () => h.close());

describe('the tool catalog (listTools) for LLM hosts', () => {
  it('serves every tool of the flat namespace, each with a description a model can act on', () => {
    expect(served.map((t) => t.name).sort()).toEqual(Object.keys(TOOLS).sort());
    for (const tool of served) {
      expect(tool.description.length, tool.name).toBeGreaterThan(20);
      expect(tool.dialect).toBe(isToolName(tool.name) ? TOOLS[tool.name].dialect : 'unknown');
    }
  });

  it('gives every tool a valid JSON Schema of an object', () => {
    for (const tool of served) {
      expect(ajv.validateSchema(tool.input_schema as object), `${tool.name}: ${ajv.errorsText()}`).toBe(true);
      const schema = tool.input_schema as { type?: string; anyOf?: { type?: string }[] };
      const roots = schema.anyOf ?? [schema];
      for (const root of roots) expect(root.type, tool.name).toBe('object');
      expect(() => compile(tool.input_schema), tool.name).not.toThrow();
    }
  });

  it("has seed examples for every tool: its schema accepts the seed's calls and refuses malformed ones", () => {
    const missing = served.map((t) => t.name).filter((name) => EXAMPLES[name] === undefined);
    expect(missing, 'add examples to catalog-examples.ts for').toEqual([]);
    for (const tool of served) {
      const examples = EXAMPLES[tool.name]!;
      const validate = compile(tool.input_schema);
      const zod = TOOLS[tool.name as keyof typeof TOOLS].input;
      for (const call of examples.valid) {
        expect(validate(call), `${tool.name} ${JSON.stringify(call)}: ${ajv.errorsText(validate.errors)}`).toBe(true);
        expect(zod.safeParse(call).success, `${tool.name} (zod) ${JSON.stringify(call)}`).toBe(true);
      }
      for (const call of [...examples.invalid, 'not an object', [], null]) {
        expect(validate(call), `${tool.name} must refuse ${JSON.stringify(call)}`).toBe(false);
        expect(zod.safeParse(call).success, `${tool.name} (zod) must refuse ${JSON.stringify(call)}`).toBe(false);
      }
    }
  });

  it('builds the same catalog locally in the SDK as the server serves', () => {
    const local = client.tools();
    expect(local.names).toEqual(served.map((t) => t.name));
    for (const d of ['000', '001', '002', '003', '004', 'planhub'] as const)
      expect(client.tools(d).names).toEqual(served.filter((t) => t.dialect === d).map((t) => t.name));
  });
});

describe('OpenAI and Anthropic tool formats', () => {
  const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

  it('presents every tool with an object schema at the root, accepting the seed calls', () => {
    const catalog: ToolCatalog = client.tools();
    expect(catalog.openai).toHaveLength(served.length);
    expect(catalog.anthropic).toHaveLength(served.length);
    catalog.openai.forEach((tool, i) => {
      const anthropic = catalog.anthropic[i]!;
      expect(tool.type).toBe('function');
      expect(tool.function.name).toMatch(NAME);
      expect(anthropic.name).toBe(tool.function.name);
      expect(anthropic.description).toBe(tool.function.description);
      expect(anthropic.input_schema).toEqual(tool.function.parameters);
      const params = tool.function.parameters;
      expect(params.type).toBe('object');
      for (const key of ['$schema', 'anyOf', 'oneOf', 'allOf', 'not', 'enum'])
        expect(params, `${tool.function.name}.${key}`).not.toHaveProperty(key);
      const validate = compile(params);
      for (const call of EXAMPLES[tool.function.name]!.valid)
        expect(validate(call), `${tool.function.name} ${JSON.stringify(call)}`).toBe(true);
    });
  });

  it("flattens a union input (addDependentStep's two forms) into one object and says which fields each form needs", () => {
    const [openai] = client.tools('000').openai.filter((t) => t.function.name === 'addDependentStep');
    expect(openai?.function.parameters).toMatchObject({
      type: 'object',
      required: ['depends_on'],
      properties: { description: { type: 'string' }, step_id: { type: 'string' }, depends_on: { type: 'array' } },
    });
    expect(openai?.function.description).toMatch(/\{description, depends_on\} or \{step_id, depends_on\}/);
    const [anthropic] = client.tools('002').anthropic.filter((t) => t.name === 'plan_exit');
    expect(anthropic?.input_schema).toMatchObject({
      type: 'object',
      required: ['plan'],
      properties: { plan: { type: 'object', required: ['summary', 'approach', 'steps'] } },
    });
  });
});

describe("execute(): each dialect's native answers", () => {
  it('answers failures in the shape of the seed system: 000 {error}, 001 {message}, 002/003 strings, 004 {ok:false}', async () => {
    const agent = await h.client('native');
    expect(await agent.execute('setStepStatus', { step_id: 'step_1', status: 'completed' })).toEqual({
      error: 'No active plan. Create a plan first with createPlan. (agent=native)',
    });
    expect(await agent.execute('todo', {})).toEqual({
      message: expect.stringMatching(/^Unknown action: None\. Valid actions: create, update, list\./) as string,
    });
    expect(await agent.execute('plan_exit', { plan: SEED_002_PLAN })).toBe(
      'Error: Not in plan mode. Call plan_enter first.',
    );
    const task = await agent.execute('TaskGet', { taskId: '99' });
    expect(typeof task).toBe('string');
    expect(task).toMatch(/99/);
    // Upstream's GetPlanOutput dumped with what it did not set, as supypowers serializes it.
    expect(await agent.execute('get_plan', { plan_id: 'nope1234' })).toEqual({
      ok: false,
      plan_id: null,
      title: null,
      steps: [],
      completed_count: 0,
      total_count: 0,
      error: 'Plan not found: nope1234',
    });
    expect(await agent.execute('getWorkspace', { plans_per_agent: 0 })).toMatchObject({
      error: expect.stringMatching(/^plans_per_agent must be at least 1\..*getWorkspace/) as string,
    });
  });

  it('answers successes with the native result, and takes the JSON string a model API hands over', async () => {
    const agent = await h.client('native-ok');
    const created = await agent.execute(
      'create_plan',
      JSON.stringify({ title: 'Deploy to production', steps: [{ description: 'Run test suite' }] }),
    );
    expect(created).toMatchObject({ ok: true, title: 'Deploy to production', steps_count: 1, error: null });
    expect(await agent.execute('plan_enter', { goal: 'Add auth' })).toMatchObject({ status: 'entered', mode: 'plan' });
    expect(await agent.execute('TaskCreate', { subject: 'Analyze', description: 'd' })).toMatchObject({
      result: expect.stringMatching(/^Task #\d+ created successfully: Analyze$/) as string,
    });
    expect(await agent.execute('todo', { action: 'list' })).toMatchObject({ status: 'listed' });
    const other = await h.client('native-000');
    expect(await other.execute('createPlan', { title: 'T', steps: ['a'] })).toMatchObject({ status: 'pending' });
    expect(await agent.execute('get_plan', '{not json')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/not valid JSON/) as string,
    });
    expect(await agent.execute('no_such_tool', {})).toMatchObject({
      error: expect.stringMatching(/Unknown tool "no_such_tool"/) as string,
    });
  });

  it("lets the core refuse what the schemas leave to it, in the seed's words", async () => {
    const agent = await h.client('core-checked');
    await agent.TaskCreate({ subject: 'One', description: 'd' });
    for (const [name, examples] of Object.entries(EXAMPLES))
      for (const call of examples.coreChecked ?? []) {
        const zod = TOOLS[name as keyof typeof TOOLS].input;
        expect(zod.safeParse(call).success, `${name} ${JSON.stringify(call)} reaches the core`).toBe(true);
        await expect(agent.call(name as 'TaskGet', call as never)).rejects.toThrow();
      }
  });
});

describe('reminder(): seed 001 context injection', () => {
  it("gives the <system-reminder> block for the caller's list, without the preamble right after the agent wrote it", async () => {
    const agent = await h.client('reminded');
    expect(await agent.reminder()).toContain("The todo tool hasn't been used recently.");
    await agent.todo({
      action: 'create',
      todos: [
        { content: 'Research auth requirements', activeForm: 'Researching auth requirements', status: 'completed' },
        { content: 'Design auth flow', activeForm: 'Designing auth flow', status: 'in_progress' },
        { content: 'Write auth tests', activeForm: 'Writing auth tests', status: 'pending' },
      ],
    });
    expect(await agent.reminder()).not.toContain("hasn't been used recently");
    const text = await agent.reminder({ quietMs: 0 });
    expect(text).toMatch(/^<system-reminder source="hooks-todo-reminder">\nThe todo tool hasn't been used recently\./);
    expect(text).toContain('✓ Research auth requirements\n→ Designing auth flow\n☐ Write auth tests');
    expect(text).toContain('✓1 done, →2 in progress, ☐3 pending');
  });
});

describe('the SDK types', () => {
  it('infers arguments and results from the zod schemas', () => {
    expectTypeOf(client.plan_enter).parameter(0).toEqualTypeOf<{ goal: string; scope?: string | undefined }>();
    expectTypeOf<ToolResult<'plan_enter'>['mode']>().toEqualTypeOf<
      'normal' | 'plan' | 'awaiting_approval' | 'executing'
    >();
    expectTypeOf<ToolResult<'plan_step_complete'>['progress']>().toEqualTypeOf<{
      total_steps: number;
      completed_steps: number;
      next_step: number | null;
    }>();
    expectTypeOf<Parameters<PlanHubClient['plan_step_complete']>[0]['step_id']>().toEqualTypeOf<number>();
    expectTypeOf<Parameters<PlanHubClient['setStepStatus']>[0]['status']>().toEqualTypeOf<
      'in_progress' | 'completed' | 'failed' | 'skipped' | 'pending' | 'blocked'
    >();
    expectTypeOf<ToolResult<'todo_read'>['todos'][number]['priority']>().toEqualTypeOf<'high' | 'medium' | 'low'>();
    expectTypeOf(client.execute<'get_plan'>).returns.resolves.toEqualTypeOf<ToolResult<'get_plan'> | NativeError>();
    expectTypeOf(client.isToolBlocked).returns.resolves.toEqualTypeOf<boolean>();
    expectTypeOf(client.reminder).returns.resolves.toEqualTypeOf<string | undefined>();
    expectTypeOf(client.tools).returns.toEqualTypeOf<ToolCatalog>();
  });
});
