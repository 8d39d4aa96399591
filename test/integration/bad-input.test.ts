import type { PlanHubClient } from '@planhub/client-sdk';
import type { CallAck } from '@planhub/shared';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { rawSocket } from '../helpers/raw-socket.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

const MB = 'x'.repeat(1_000_000);

interface Case {
  name: string;
  /** What is emitted as the "call" payload. */
  payload: unknown;
  code: string;
  /** The message must say what to fix. */
  message: RegExp;
}

/** Run against agent "main", whose current plan is in progress with step_1 completed and step_2, step_3 pending. */
const CASES: Case[] = [
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

const send = (socket: Socket, payload: unknown) =>
  socket.timeout(10_000).emitWithAck('call', payload) as Promise<CallAck>;

describe.each(STORE_KINDS)('malformed calls on the %s store', (kind) => {
  let h: Harness;
  let main: PlanHubClient;
  let socket: Socket;
  let planId: string;

  /** Everything a bad call could have touched: the plan, the agent's view of it, and the workspace log. */
  const snapshot = async () => ({
    plan: await main.getPlanStatus({}),
    log: await h.server.services.store.readEvents('ws', { count: 10_000 }),
    events: await main.getTaskEvents({ limit: 500 }),
  });

  beforeAll(async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto', limits: { callsPerSecond: 10_000 } });
    main = await h.client('main');
    planId = (await main.createPlan({ title: 'Target', steps: ['one', 'two', 'three'] })).plan_id;
    await main.startPlan({});
    await main.setStepStatus({ step_id: 'step_1', status: 'completed' });
    socket = await rawSocket(h.url, 'main');
  });
  afterAll(async () => {
    socket.disconnect();
    await h.close();
  });

  it.each(CASES)('answers $name with $code and changes nothing', async ({ payload, code, message }) => {
    const before = await snapshot();
    const ack = await send(socket, payload);
    expect(ack.ok).toBe(false);
    if (ack.ok) return;
    expect(ack.error.code).toBe(code);
    expect(ack.error.message).toMatch(message);
    // Short enough for a model's context, and never the oversized input echoed back.
    expect(ack.error.message.length).toBeLessThan(2000);
    expect(JSON.stringify(ack.error).length).toBeLessThan(5000);
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a change to another agent’s plan and changes nothing', async () => {
    const other = await rawSocket(h.url, 'intruder');
    try {
      // A new agent's first connection is announced (agent_online) after its handshake, not within it: the
      // snapshot is taken once that is in the log, so only the refused call could change it.
      await poll(async () =>
        (await h.server.services.store.readEvents('ws', { count: 10_000 })).some(
          (e) => e.event_type === 'agent_online' && e.source_agent === 'intruder',
        ),
      ).toBe(true);
      const before = await snapshot();
      const ack = await send(other, {
        tool: 'setStepStatus',
        args: { plan_id: planId, step_id: 'step_2', status: 'completed' },
      });
      expect(ack).toMatchObject({
        ok: false,
        error: { code: 'PERMISSION_DENIED', message: expect.stringMatching(/belongs to agent main/) as string },
      });
      expect(await snapshot()).toEqual(before);
    } finally {
      other.disconnect();
    }
    // Its disconnection is announced (agent_offline) after the socket closed: in the log before the next test's
    // snapshot, so that snapshot sees only what its own call does.
    await poll(async () =>
      (await h.server.services.store.readEvents('ws', { count: 10_000 })).some(
        (e) => e.event_type === 'agent_offline' && e.source_agent === 'intruder',
      ),
    ).toBe(true);
  });

  it('ignores a call sent without an acknowledgement callback', async () => {
    const before = await snapshot();
    socket.emit('call', { tool: 'addStep', args: { description: 'sent without ack' } });
    // The socket handles events in order: once a later call is answered, the unacknowledged one was dropped.
    expect(await send(socket, { tool: 'getPlanStatus', args: {} })).toMatchObject({ ok: true });
    expect(await snapshot()).toEqual(before);
  });

  it('answers an event other than "call" that asks for an answer, saying which event to send', async () => {
    const before = await snapshot();
    for (const event of ['bogus', 'createPlan', 'calls'])
      expect(
        await socket.timeout(5000).emitWithAck(event, { tool: 'addStep', args: { description: 'wrong event' } }),
      ).toEqual({
        ok: false,
        error: {
          code: 'INVALID_ARGUMENT',
          message: expect.stringMatching(
            new RegExp(`^Unknown event "${event}": this node answers only "call" events`),
          ) as string,
        },
      });
    // Without an acknowledgement it is dropped, as an unacknowledged call is.
    socket.emit('bogus', { tool: 'addStep', args: { description: 'wrong event' } });
    expect(await send(socket, { tool: 'getPlanStatus', args: {} })).toMatchObject({ ok: true });
    expect(await snapshot()).toEqual(before);
  });

  it('drops a frame over the payload limit by closing that connection only, and keeps serving', async () => {
    const big = await rawSocket(h.url, 'main');
    const closed = new Promise<string>((resolve) => big.once('disconnect', resolve));
    big.emit('call', { tool: 'addStep', args: { description: 'x'.repeat(2_000_000) } }, () => {});
    expect(await closed).toMatch(/transport close|io server disconnect/);
    expect(await send(socket, { tool: 'getPlanStatus', args: {} })).toMatchObject({ ok: true });
  });

  it('keeps serving well-formed calls after all of them', async () => {
    const ack = await send(socket, { tool: 'setStepStatus', args: { step_id: 'step_2', status: 'in_progress' } });
    expect(ack).toMatchObject({ ok: true, result: { step: { id: 'step_2', status: 'in_progress' } } });
    const plan = await main.getPlanStatus({});
    expect(plan.steps.map((s) => [s.id, s.status])).toEqual([
      ['step_1', 'completed'],
      ['step_2', 'in_progress'],
      ['step_3', 'pending'],
    ]);
  });
});
