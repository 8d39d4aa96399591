import type { PlanHubClient } from '@planhub/client-sdk';
import type { CallAck } from '@planhub/shared';
import { toolCatalog } from '@planhub/shared';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawSocket } from '../helpers/raw-socket.ts';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { EXAMPLES } from './catalog-examples.ts';

/** zod's own phrases (its English locale): none of them may reach a model, whose fixes depend on plain sentences. */
const ZOD_WORDING = new RegExp(
  [
    'Invalid input',
    'expected \\w+, received',
    'Too small',
    'Too big',
    'Invalid option',
    'Unrecognized keys?',
    'Invalid (string|element|key|union|enum value|literal)',
    'Required$',
    'must (match|have) (pattern|>=|<=)',
  ].join('|'),
);

/** A value the caller never sent, quoted as if it had ("Invalid status: undefined"): a missing field is required. */
const NO_VALUE = /: undefined\b/;

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
}

/** Values of every kind and size: for any argument, most of them are wrong (too small, too big, wrong type). */
const WRONG: readonly unknown[] = [
  null,
  true,
  -1,
  1.5,
  1e15,
  '',
  'no-such-value',
  'x'.repeat(70_000),
  [],
  [null],
  [42],
  [{}],
  Array.from({ length: 2_000 }, () => 'x'),
  {},
  { unexpected: 1 },
];

/** Every field of an object schema, of each form of a union too. */
const propertiesOf = (schema: JsonSchema): Record<string, JsonSchema> =>
  [schema, ...(schema.anyOf ?? [])].reduce<Record<string, JsonSchema>>(
    (all, form) => ({ ...all, ...form.properties }),
    {},
  );

/** Malformed arguments for one tool: none, each field wrong in every way, and each field of a nested object wrong. */
const malformedCalls = (schema: JsonSchema): Record<string, unknown>[] => {
  const calls: Record<string, unknown>[] = [{}, { not_a_field: 'x' }];
  for (const [name, field] of Object.entries(propertiesOf(schema))) {
    for (const value of WRONG) calls.push({ [name]: value });
    const nested = propertiesOf(field.items ?? field);
    for (const inner of Object.keys(nested))
      for (const value of WRONG.slice(0, 8)) {
        const item = { [inner]: value };
        calls.push({ [name]: field.items ? [item] : item });
      }
  }
  return calls;
};

describe('refusals a model reads (memory store)', () => {
  let h: Harness;
  let socket: Socket;
  let agent: PlanHubClient;

  beforeAll(async () => {
    h = await startHarness('memory', {
      approvalPolicy: 'auto',
      limits: { callsPerSecond: 100_000 },
    });
    agent = await h.client('model');
    // A started plan, so step tools get past "no plan" and check their arguments against real steps.
    await agent.createPlan({ title: 'Target', steps: ['one', 'two'] });
    await agent.startPlan({});
    socket = await rawSocket(h.url, 'model');
  });
  afterAll(async () => {
    socket.disconnect();
    await h.close();
  });

  it("never carry zod's own wording nor quote a missing value, for malformed calls of every tool and bad examples", async () => {
    const seen: string[] = [];
    let refused = 0;
    for (const { name, input_schema } of toolCatalog()) {
      const examples = EXAMPLES[name];
      const calls: unknown[] = [
        ...malformedCalls(input_schema as JsonSchema),
        ...(examples?.invalid ?? []),
        ...(examples?.coreChecked ?? []),
      ];
      for (const args of calls) {
        // A long-poll or a decision wait would only slow the sweep: those arguments are left at their defaults.
        if (typeof args === 'object' && args !== null && ('timeout' in args || 'wait' in args)) continue;
        const ack = (await socket.timeout(10_000).emitWithAck('call', { tool: name, args })) as CallAck;
        if (ack.ok) continue;
        refused++;
        const texts = [
          ack.error.message,
          ...((ack.error.details as { issues?: { message: string }[] } | undefined)?.issues ?? []).map(
            (i) => i.message,
          ),
        ];
        for (const text of texts)
          if (ZOD_WORDING.test(text) || NO_VALUE.test(text))
            seen.push(`${name} ${JSON.stringify(args).slice(0, 120)} → ${text}`);
      }
    }
    expect(refused).toBeGreaterThan(500);
    expect(seen).toEqual([]);
  });

  it("never carry zod's wording through execute() either, in each dialect's native shape", async () => {
    const texts: unknown[] = [];
    for (const [name, args] of [
      ['createPlan', { title: 7, steps: [{}] }],
      ['todo', { action: 'create', todos: 'x' }],
      ['todo_write', { todos: [{ id: 1 }] }],
      ['TaskUpdate', { taskId: [], status: 5 }],
      ['update_plan', { plan_id: {}, step_index: 'first' }],
    ] as const)
      texts.push(await agent.execute(name, args));
    expect(texts).toHaveLength(5);
    for (const answer of texts) {
      const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
      expect(text).not.toMatch(ZOD_WORDING);
    }
  });
});
