import { describe, expect, it } from 'vitest';
import { serverFixture } from './support/server-fixture.ts';

/** 100 units per agent per 10 s window. */
const LIMITS = { callsPerSecond: 10, rateWindowSeconds: 10 } as const;
/** 200 one-character steps: a frame of under 1 KiB (one unit) that writes 202 documents. */
const STEPS = Array.from({ length: 200 }, (_, i) => `${i % 10}`);

/** Steps waiting on one worker's step: each gets its own copy of the output. */
const WAITERS = 60;

/** A seed-003 list whose cleanup deletes more documents than an agent's window holds units. */
const TASKS = 450;

type Ack = { ok: boolean; error?: { code: string; message: string } };

/**
 * A call pays for the documents its commit writes, as it pays for its frame and its answer: createPlan with 200
 * one-character steps cost one unit for 9-26 ms of node CPU, and one agent repeating it took another workspace's
 * p99 from 25 ms to 835 ms.
 */
describe('what a write costs its caller', () => {
  const { node, join } = serverFixture({ limits: LIMITS, approvalPolicy: 'auto' });

  it('charges a commit by the documents it writes, and a step change nothing more', async () => {
    const url = await node();
    const writer = await join(url, 'ws', 'writer');
    // Each plan: 1 unit for the call, 48 for its 202 documents (the one it supersedes is cancelled in the same
    // commit, which writes more). The window holds 100 units: the second plan is taken, the third is refused.
    const answers: string[] = [];
    for (let i = 0; i < 3; i++) {
      const ack = (await writer.call('createPlan', { title: `Wide ${i}`, steps: STEPS })) as Ack;
      answers.push(ack.ok ? 'ok' : `${ack.error?.code}: ${ack.error?.message.slice(0, 24)}`);
    }
    expect(answers.slice(0, 2)).toEqual(['ok', 'ok']);
    expect(answers[2]).toMatch(/^RESOURCE_EXHAUSTED: Too many calls/);

    // Step changes write a document or two: 90 of them fit another agent's window.
    const stepper = await join(url, 'ws', 'stepper');
    expect(await stepper.call('createPlan', { title: 'Narrow', steps: ['a', 'b'] })).toMatchObject({ ok: true });
    expect(await stepper.call('startPlan', {})).toMatchObject({ ok: true });
    const statuses = ['in_progress', 'pending'] as const;
    for (let i = 0; i < 90; i++)
      expect(await stepper.call('setStepStatus', { step_id: 'step_1', status: statuses[i % 2] })).toMatchObject({
        ok: true,
      });
  });
  it('charges a completion for the copies of its output the steps waiting on it receive', async () => {
    const url = await node();
    const worker = await join(url, 'ws', 'worker');
    expect(await worker.call('createPlan', { title: 'Source', steps: ['produce'] })).toMatchObject({ ok: true });
    expect(await worker.call('startPlan', { wait: false })).toMatchObject({ ok: true });
    for (let i = 0; i < WAITERS; i++) {
      const waiter = await join(url, 'ws', `waiter-${i}`);
      await waiter.call('createPlan', { title: `Wait ${i}`, steps: ['first'] });
      await waiter.call('startPlan', { wait: false });
      expect(
        await waiter.call('addDependentStep', {
          description: 'use the output',
          depends_on: [{ agent_id: 'worker', step_id: 'step_1' }],
        }),
      ).toMatchObject({ ok: true });
      waiter.close();
    }
    // Its frame costs 3 units (16 KiB a unit) and its 60 waiters' records and events 109 (2 x 60 x 60 KB at 64 KiB a
    // unit), past the window's 100; charged for the frame alone, the worker had over 90 left.
    const output = { report: 'r'.repeat(60_000) };
    expect(await worker.call('completeStepWithOutput', { step_id: 'step_1', output })).toMatchObject({ ok: true });
    const after = (await worker.call('getPlanStatus', {})) as Ack;
    expect(after.ok ? 'ok' : after.error?.code).toBe('RESOURCE_EXHAUSTED');
  });
  it('does not charge an agent for the cleanup its last task completion sets off', async () => {
    const url = await node();
    const helpers = await Promise.all(Array.from({ length: 10 }, (_, i) => join(url, 'ws', `helper-${i}`)));
    // 450 tasks made and 449 completed by ten agents (90 calls each, inside their windows).
    for (const [i, helper] of helpers.slice(0, 5).entries())
      for (let j = 0; j < 90; j++)
        expect(await helper.call('TaskCreate', { subject: `t${i}-${j}`, description: 'd' })).toMatchObject({
          ok: true,
        });
    for (let id = 1; id < TASKS; id++)
      expect(
        await helpers[5 + (id % 5)]!.call('TaskUpdate', { taskId: String(id), status: 'completed' }),
      ).toMatchObject({ ok: true });
    // The last completion empties the list (upstream's cleanup deletes every task): counted by the documents it
    // deletes, that was 110 units, and the closer's next call was refused.
    const closer = await join(url, 'ws', 'closer');
    expect(await closer.call('TaskUpdate', { taskId: String(TASKS), status: 'completed' })).toMatchObject({ ok: true });
    expect(await closer.call('TaskList', {})).toMatchObject({ ok: true });
  });
});
