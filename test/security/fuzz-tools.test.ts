import type { PlanHubServer } from '@planhub/server';
import { createMemoryStore, createServer } from '@planhub/server';
import type { CallAck, ToolName } from '@planhub/shared';
import { CallAckSchema, TOOLS, TOOL_NAMES } from '@planhub/shared';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { rounds } from '../helpers/stress.ts';
import { seedAgent, type Seeded } from './support/fixture.ts';
import { openAuth, rawClient, type RawClient } from './support/raw-client.ts';
import { recordingStore, type RecordingStore } from './support/recording-store.ts';
import {
  brief,
  checkProperty,
  hostileValue,
  jsonKeysOf,
  plausibleValues,
  prototypeBaseline,
} from './support/hostile.ts';

const CASES = rounds(1000);

let rec: RecordingStore;
let server: PlanHubServer;
let url: string;
const baseline = prototypeBaseline();

beforeAll(async () => {
  rec = recordingStore(createMemoryStore({ eventRetention: 2000 }));
  // auto approval: startPlan/plan_exit answer at once; the call budget is off so only the inputs are under test.
  server = createServer(
    { port: 0, logLevel: 'silent', approvalPolicy: 'auto', limits: { callsPerSecond: 10_000_000 } },
    { store: rec.store },
  );
  ({ url } = await server.listen());
});
const counts: string[] = [];
afterAll(async () => {
  await server.close();
  console.info(`fuzzed arguments: ${counts.length} tools; cases per tool: ${counts.join(', ')}`);
});

/** Arguments for one tool: mostly objects keyed by its own (nested) argument names, valued plausibly or hostilely. */
const argsFor = (tool: ToolName, seeded: Seeded) => {
  const keys = jsonKeysOf(z.toJSONSchema(TOOLS[tool].input, { io: 'input', unrepresentable: 'any' }));
  const plausible = plausibleValues(seeded);
  const value = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...plausible) },
    { weight: 2, arbitrary: hostileValue(keys) },
  );
  const key = fc.oneof(
    { weight: 6, arbitrary: keys.length > 0 ? fc.constantFrom(...keys) : fc.string() },
    { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'valueOf') },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  );
  return fc.oneof(
    { weight: 8, arbitrary: fc.dictionary(key, value, { maxKeys: 6 }) },
    { weight: 1, arbitrary: hostileValue(keys) },
  );
};

const frameFor = (tool: ToolName, seeded: Seeded) =>
  fc.record(
    {
      tool: fc.constant(tool),
      args: argsFor(tool, seeded),
      request_id: fc.oneof(fc.string({ maxLength: 200 }), fc.constant(undefined), hostileValue([])),
    },
    { requiredKeys: ['tool', 'args'] },
  );

/** getTaskEvents long-polls up to 30 s: a generated timeout would stall the run, not test anything new. */
const defuse = (tool: ToolName, frame: { args: unknown }) => {
  if (tool === 'getTaskEvents' && frame.args && typeof frame.args === 'object' && 'timeout' in frame.args)
    (frame.args as Record<string, unknown>).timeout = 0;
  return frame;
};

/**
 * Why an answer is not a well-formed CallAck a model can act on, or undefined. Plain checks, not expect(): this runs
 * 34,000 times per run and vitest's matchers would dominate the run time.
 */
const answerProblem = (answer: unknown): string | undefined => {
  const parsed = CallAckSchema.safeParse(answer);
  if (!parsed.success) return `malformed answer ${brief(answer)}`;
  const ack = parsed.data;
  if (ack.ok) return undefined;
  if (ack.error.code === 'INTERNAL') return `INTERNAL: ${ack.error.message}`;
  if (/\n\s+at /.test(ack.error.message)) return `stack trace in ${brief(ack.error)}`;
  // Error messages never echo a huge input back.
  if (JSON.stringify(ack.error).length > 20_000) return `oversized error ${brief(ack.error)}`;
  return undefined;
};

/** Every this many rejected cases, the cheap "nothing committed" check is backed by a full read-back snapshot. */
const FULL_SNAPSHOT_EVERY = 10;

// Tools run concurrently, each on its own workspace and connection: the per-case round trip is mostly waiting.
describe.concurrent(`fuzzing every tool's arguments (${CASES} cases per tool)`, () => {
  it.each(TOOL_NAMES.map((t) => [t]))(
    '%s: no crash, well-formed answers, rejected calls change nothing',
    async (tool) => {
      const workspace = `fz-${tool}`;
      const client: RawClient = await rawClient(url, openAuth(workspace, 'fuzzer'));
      try {
        const seeded = await seedAgent(client, 'MARK');
        let rejected = 0;
        let current = await rec.snapshot(workspace);
        const ran = await checkProperty(
          fc.asyncProperty(frameFor(tool, seeded), async (frame) => {
            const commitsBefore = rec.commits(workspace);
            const answer = await client.send(defuse(tool, frame));
            const problem = answerProblem(answer);
            if (problem) throw new Error(problem);
            if ((answer as CallAck).ok) {
              current = await rec.snapshot(workspace);
              return;
            }
            rejected += 1;
            if (rec.commits(workspace) !== commitsBefore) throw new Error('a rejected call committed a change');
            if (rejected % FULL_SNAPSHOT_EVERY === 0) {
              const after = await rec.snapshot(workspace);
              if (!isDeepStrictEqual(after, current)) throw new Error('a rejected call changed the stored state');
              if (!isDeepStrictEqual(prototypeBaseline(), baseline)) throw new Error('a built-in prototype changed');
            }
          }),
          CASES,
        );
        expect(await rec.snapshot(workspace)).toEqual(current);
        expect(prototypeBaseline()).toEqual(baseline);
        expect(ran).toBe(CASES);
        expect(rejected).toBeGreaterThan(0);
        counts.push(`${tool} ${ran} (${rejected} rejected)`);
        // The node still serves this connection normally afterwards.
        const last = await client.call('listTools', {});
        expect(answerProblem(last)).toBeUndefined();
        expect(last.ok).toBe(true);
      } finally {
        client.close();
      }
    },
    // Five tools at a time share two cores with the rest of the suite (attack tests spawn their own nodes).
    90_000,
  );
});
