import type { CallAck } from '@planhub/shared';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawSocket } from '../helpers/raw-socket.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

const send = (socket: Socket, tool: string, args: Record<string, unknown>) =>
  socket.timeout(10_000).emitWithAck('call', { tool, args }) as Promise<CallAck>;
const ok = async (socket: Socket, tool: string, args: Record<string, unknown>) => {
  const ack = await send(socket, tool, args);
  if (!ack.ok) throw new Error(`${tool}: ${ack.error.code} ${ack.error.message}`);
  return ack.result as Record<string, unknown>;
};

/**
 * A strict-mode model fills every optional string, with "" where it has no value; upstream reads "" in these
 * arguments as not given (it tests them for truth, or does not check them). They were refused "must not be empty".
 */
describe.each(STORE_KINDS)('empty optional arguments on the %s store', (kind) => {
  let h: Harness;
  let socket: Socket;

  beforeAll(async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto', limits: { callsPerSecond: 10_000 } });
    socket = await rawSocket(h.url, 'strict-model');
    await ok(socket, 'createPlan', { title: 'T', steps: ['one', 'two'] });
    await ok(socket, 'startPlan', {});
  });
  afterAll(async () => {
    socket.disconnect();
    await h.close();
  });

  it('000: subscribeToTasks and getTaskEvents read "" filters as none', async () => {
    const sub = await ok(socket, 'subscribeToTasks', {
      event_types: ['step_completed'],
      agent_id: '*',
      plan_id: '',
      step_id: '',
    });
    expect(sub.filter).toEqual({ agent_id: null, plan_id: null, step_id: null, event_types: ['step_completed'] });
    const read = await ok(socket, 'getTaskEvents', { agent_id: '', plan_id: '', step_id: '' });
    expect(read.count).toBeGreaterThan(0);
  });

  it('000: addStep and addDependentStep read "" after_step_id, provides and plan_id as left out', async () => {
    const added = await ok(socket, 'addStep', { description: 'appended', after_step_id: '', plan_id: '' });
    expect(added).toMatchObject({ step_id: 'step_3', sequence: 3 });
    const dependent = await ok(socket, 'addDependentStep', {
      description: 'waits',
      depends_on: [{ agent_id: 'helper', step_id: 'step_1', plan_id: '' }],
      after_step_id: '',
      provides: '',
    });
    expect(dependent).toMatchObject({ step_id: 'step_4', status: 'blocked' });
  });

  it('004: working_dir "" is the default folder, and a bad status is one sentence', async () => {
    const created = await ok(socket, 'create_plan', { title: 'Dot', steps: [{ description: 'x' }], working_dir: '' });
    expect(created).toMatchObject({ ok: true, steps_count: 1 });
    expect(await ok(socket, 'get_plan', { working_dir: '' })).toMatchObject({ plan_id: created.plan_id });
    const bad = await send(socket, 'update_plan', { plan_id: created.plan_id, step_index: 0, status: 'weird' });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error.message).toMatch(/Valid statuses: pending, in_progress, completed, skipped\. Check/);
      expect(bad.error.message).not.toContain('..');
    }
  });

  it("004: supyagent's names reach the same tools on a socket", async () => {
    const created = await ok(socket, 'plan__create_plan', { title: 'Supy', steps: [{ description: 'a' }] });
    expect(await ok(socket, 'plan__get_plan', { plan_id: created.plan_id })).toMatchObject({ title: 'Supy' });
  });
});
