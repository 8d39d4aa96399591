import type { CatalogDialect, PlanHubClient } from '@planhub/client-sdk';
import { toParameters } from '@planhub/client-sdk';
import { TOOLS, fromStrictArgs, isToolName, toolCatalog } from '@planhub/shared';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES } from '../integration/catalog-examples.ts';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { asStrictCall, strictViolations } from './strict-schema-rules.ts';

const DIALECTS: CatalogDialect[] = ['000', '001', '002', '003', '004', 'planhub'];
const ajv = new Ajv2020({ strict: false, allErrors: true });

describe('OpenAI strict mode: client.tools(dialect, { strict: true })', () => {
  let h: Harness;
  let client: PlanHubClient;
  beforeAll(async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    client = await h.client('strict');
  });
  afterAll(async () => h.close());

  it('gives every tool of every dialect a definition that keeps every strict-mode rule', () => {
    let checked = 0;
    for (const dialect of DIALECTS)
      for (const tool of client.tools(dialect, { strict: true }).openai) {
        expect(tool.function.strict).toBe(true);
        expect(strictViolations(tool.function.parameters), `${dialect} ${tool.function.name}`).toEqual([]);
        checked += 1;
      }
    expect(checked).toBe(toolCatalog().length);
  });

  it('has a checker that catches the breaches of the ordinary definitions', () => {
    const loose = client.tools().openai.flatMap((t) => strictViolations(t.function.parameters));
    expect(loose.some((p) => p.includes('additionalProperties is not false'))).toBe(true);
    expect(loose.some((p) => p.includes('not required'))).toBe(true);
    expect(loose.some((p) => p.includes('keyword "maxLength"'))).toBe(true);
    expect(client.tools().openai.every((t) => t.function.strict === undefined)).toBe(true);
  });

  it("turns every seed call, made the strict way (nulls for what it leaves out, JSON strings for free-form values), back into the tool's own arguments", () => {
    const strict = client.tools(undefined, { strict: true }).openai;
    for (const tool of strict) {
      const name = tool.function.name;
      if (!isToolName(name)) throw new Error(`${name} is not a tool`);
      const validStrict = ajv.compile(tool.function.parameters);
      const own = toParameters(toolCatalog().find((t) => t.name === name)?.input_schema);
      for (const call of EXAMPLES[name]?.valid ?? []) {
        const made = asStrictCall(tool.function.parameters, call);
        expect(validStrict(made), `${name}: ${JSON.stringify(made)} against its strict schema`).toBe(true);
        const back = fromStrictArgs(own, made);
        const parsed = TOOLS[name].input.safeParse(back);
        expect(parsed.success, `${name}: ${JSON.stringify(back)}`).toBe(true);
        expect(parsed.data).toEqual(TOOLS[name].input.parse(call));
      }
    }
  });

  it('executes a strict call against a node: nulls are omitted, the JSON-string output arrives as an object', async () => {
    const strict = (name: string, args: Record<string, unknown>) => client.execute(name, JSON.stringify(args));
    const output = { passed: true, files: ['a.ts'] };
    await strict('createPlan', { title: 'Strict', steps: ['Build'] });
    await strict('startPlan', { message: null, wait: null, plan_id: null });
    const done = await strict('completeStepWithOutput', {
      step_id: 'step_1',
      output: JSON.stringify(output),
      result: null,
      plan_id: null,
    });
    // Upstream's answers carry error: null on success; a refusal would be { error: <message> } alone.
    expect(done).toMatchObject({ status: 'completed', error: null, output });
    const status = await client.getPlanStatus({});
    expect(status.steps[0]).toMatchObject({ status: 'completed' });
    const { events } = await client.getTaskEvents({ event_types: ['step_completed'] });
    expect(events.at(-1)?.payload).toMatchObject({ output });
  });
});
