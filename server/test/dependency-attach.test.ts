import type { Plan } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { attachDependencies, stepNode } from '../src/core/dependencies/attach.ts';
import { dependencyNode, pendingNode } from '../src/core/dependencies/nodes.ts';
import { applyResolution } from '../src/core/dependencies/resolve.ts';
import { newPlan } from '../src/core/plans/plan-factory.ts';
import { changeStepStatus } from '../src/core/plans/step-status.ts';

const NOW = '2026-01-01T00:00:00.000Z';

const running = (planId: string, agentId: string, steps: string[]): Plan => ({
  ...newPlan({
    plan_id: planId,
    workspace: 'ws',
    agent_id: agentId,
    title: planId,
    dialect: '000',
    steps: steps.map((description) => ({ description })),
    now: NOW,
  }),
  status: 'in_progress',
});

describe('attaching dependencies (the engine of addDependentStep)', () => {
  it('waits on two steps of one other plan, each target read holding only its own step', () => {
    const parent = running('pp', 'parent', ['wait']);
    const sub = running('ss', 'sub', ['first', 'second']);
    const only = (stepId: string): Plan => ({ ...sub, steps: sub.steps.filter((s) => s.id === stepId) });
    const out = attachDependencies(
      parent,
      'step_1',
      [
        { plan: only('step_1'), step_id: 'step_1' },
        { plan: only('step_2'), step_id: 'step_2' },
      ],
      {},
      NOW,
    );
    expect(out.step.blocked_by).toEqual([
      { agent_id: 'sub', plan_id: 'ss', step_id: 'step_1' },
      { agent_id: 'sub', plan_id: 'ss', step_id: 'step_2' },
    ]);
    expect(out.registrations.map((r) => r.target)).toEqual([stepNode('ss', 'step_1'), stepNode('ss', 'step_2')]);
  });

  it("refuses one agent's step of one id in two named plans: received_outputs would keep one of the outputs", () => {
    const parent = running('pp', 'parent', ['join']);
    const first = running('p1', 'kid', ['same']);
    const second = running('p2', 'kid', ['same']);
    const ended = changeStepStatus(
      first,
      { step_id: 'step_1', status: 'completed', output: { from: 'plan1' } },
      NOW,
    ).plan;
    const attempt = () =>
      attachDependencies(
        parent,
        'step_1',
        [
          { plan: ended, step_id: 'step_1' },
          { plan: second, step_id: 'step_1' },
        ],
        {},
        NOW,
      );
    expect(attempt).toThrow(/already depends on kid:step_1 in plan p1, and cannot also depend on it in plan p2/);
    // Added in two calls, the same.
    const once = attachDependencies(parent, 'step_1', [{ plan: ended, step_id: 'step_1' }], {}, NOW);
    expect(() => attachDependencies(once.plan, 'step_1', [{ plan: second, step_id: 'step_1' }], {}, NOW)).toThrow(
      /received_outputs keeps one value per/,
    );
  });

  it('blocks the step, registers one waiter per dependency and one graph edge', () => {
    const parent = running('pp', 'parent', ['wait']);
    const sub = running('ss', 'sub', ['final']);
    const target = { plan: sub, step_id: 'step_1' };
    const out = attachDependencies(parent, 'step_1', [target, target], {}, NOW);
    expect(out.step).toMatchObject({
      status: 'blocked',
      blocked_by: [{ agent_id: 'sub', plan_id: 'ss', step_id: 'step_1' }],
      depends_on: [{ agent_id: 'sub', plan_id: 'ss', step_id: 'step_1' }],
    });
    expect(out.registrations).toEqual([
      {
        target: stepNode('ss', 'step_1'),
        plan_id: 'ss',
        waiter: { agent_id: 'parent', plan_id: 'pp', step_id: 'step_1' },
      },
    ]);
    expect(out.newEdges).toEqual([
      { from: stepNode('pp', 'step_1'), to: stepNode('ss', 'step_1') },
      // The alias a wait on "parent's step_1, any plan" reaches this step through.
      { from: pendingNode('parent', 'step_1'), to: stepNode('pp', 'step_1') },
    ]);
    expect(out.events.map((e) => [e.event_type, e.source_agent])).toEqual([['step_blocked', 'parent']]);
    // Inputs are values: nothing was mutated.
    expect(parent.steps[0]?.status).toBe('pending');
    expect(sub.waiters).toEqual({});

    const again = attachDependencies(
      out.plan,
      'step_1',
      [{ plan: sub, step_id: 'step_1' }],
      { [stepNode('pp', 'step_1')]: [stepNode('ss', 'step_1')] },
      NOW,
    );
    expect(again.added).toEqual([]);
    expect(again.registrations).toEqual([]);
    expect(again.events).toEqual([]);
  });

  it('resolves at once a dependency whose target already ended, with its output or its outcome', () => {
    const parent = running('pp', 'parent', ['wait']);
    const done = changeStepStatus(
      running('ss', 'sub', ['a', 'b']),
      { step_id: 'step_1', status: 'completed', output: { v: 1 }, provides: 'data' },
      NOW,
    ).plan;
    const failed = changeStepStatus(done, { step_id: 'step_2', status: 'failed', error: 'boom' }, NOW).plan;
    const out = attachDependencies(
      parent,
      'step_1',
      [
        { plan: failed, step_id: 'step_1' },
        { plan: failed, step_id: 'step_2' },
      ],
      {},
      NOW,
    );
    expect(out.step).toMatchObject({
      status: 'pending',
      received_outputs: {
        'sub:step_1': { v: 1 },
        data: { v: 1 },
        'sub:step_2': { status: 'failed', result: null, error: 'boom' },
      },
    });
    expect(out.resolvedNow).toHaveLength(2);
    expect(out.newEdges).toEqual([]);
    // Ready at once, and announced like any other unblock.
    expect(out.events).toHaveLength(1);
    expect(out.events[0]).toMatchObject({
      event_type: 'step_unblocked',
      source_agent: 'parent',
      source_step_id: 'step_1',
      payload: {
        received_outputs: ['sub:step_1', 'data', 'sub:step_2'],
        outputs: out.step.received_outputs,
        unblocked_by: { agent_id: 'sub', plan_id: 'ss', step_id: 'step_2' },
        unblocked_by_agent: 'sub',
      },
    });
  });

  it('counts a step left open in a finished (rejected) plan as skipped', () => {
    const rejected: Plan = { ...running('ss', 'sub', ['never']), status: 'rejected' };
    const out = attachDependencies(
      running('pp', 'parent', ['w']),
      'step_1',
      [{ plan: rejected, step_id: 'step_1' }],
      {},
      NOW,
    );
    expect(out.step.received_outputs).toEqual({
      'sub:step_1': { status: 'skipped', result: 'plan rejected', error: null },
    });
  });

  it('refuses an edge that closes a cycle and names the path', () => {
    const a = running('aa', 'a', ['x']);
    const b = running('bb', 'b', ['y']);
    const edges = { [stepNode('bb', 'step_1')]: [stepNode('aa', 'step_1')] };
    expect(() => attachDependencies(a, 'step_1', [{ plan: b, step_id: 'step_1' }], edges, NOW)).toThrow(
      /a:step_1 waiting on b:step_1 would close a dependency cycle \(a:step_1 \(plan aa\) → b:step_1 \(plan bb\) → a:step_1/,
    );
    expect(() => attachDependencies(a, 'step_1', [{ plan: a, step_id: 'step_1' }], {}, NOW)).toThrow(/cycle/);
  });

  it('waits on a step that does not exist yet: by agent in any plan, or in a named plan', () => {
    const parent = running('pp', 'parent', ['w']);
    const named = running('nn', 'named', ['only']);
    const out = attachDependencies(
      parent,
      'step_1',
      [
        { future: true, agent_id: 'child', step_id: 'step_3' },
        { future: true, agent_id: 'named', step_id: 'step_2', plan: named },
      ],
      {},
      NOW,
    );
    expect(out.step).toMatchObject({
      status: 'blocked',
      blocked_by: [
        { agent_id: 'child', step_id: 'step_3' },
        { agent_id: 'named', step_id: 'step_2', plan_id: 'nn' },
      ],
    });
    const waiter = { agent_id: 'parent', plan_id: 'pp', step_id: 'step_1' };
    expect(out.registrations).toEqual([
      { target: pendingNode('child', 'step_3'), plan_id: undefined, waiter },
      { target: stepNode('nn', 'step_2'), plan_id: 'nn', waiter },
    ]);
    expect(out.step.blocked_by?.map(dependencyNode)).toEqual([
      pendingNode('child', 'step_3'),
      stepNode('nn', 'step_2'),
    ]);
    // Agent ids may hold ":" and "/": the agent-wide node keeps them apart.
    expect(pendingNode('a:b', 'c')).not.toBe(pendingNode('a', 'b:c'));
    expect(pendingNode('a/b', 'c')).not.toBe(pendingNode('a', 'b/c'));
  });

  it('refuses a cycle through a step that did not exist when it was waited on', () => {
    // parent:step_1 waits on "child's step_1, any plan"; child's step_1 may not wait on parent:step_1 now.
    const edges = { [stepNode('pp', 'step_1')]: [pendingNode('child', 'step_1')] };
    const child = running('cc', 'child', ['work']);
    const parent = running('pp', 'parent', ['w']);
    expect(() => attachDependencies(child, 'step_1', [{ plan: parent, step_id: 'step_1' }], edges, NOW)).toThrow(
      /would close a dependency cycle \(child:step_1 \(plan cc\) → parent:step_1 \(plan pp\) → child:step_1 \(not created yet\)/,
    );
    // Another step of the child is not in that cycle.
    const two = running('c2', 'child', ['a', 'b']);
    expect(attachDependencies(two, 'step_2', [{ plan: parent, step_id: 'step_1' }], edges, NOW).added).toHaveLength(1);
  });

  it('makes a step in progress or ended wait as well (blocked, an ended one reopened), as upstream accepts', () => {
    const sub = { plan: running('ss', 's', ['x']), step_id: 'step_1' };
    const base = running('pp', 'parent', ['w']);
    const working = changeStepStatus(base, { step_id: 'step_1', status: 'in_progress' }, NOW).plan;
    const waiting = attachDependencies(working, 'step_1', [sub], {}, NOW);
    expect(waiting.step).toMatchObject({ status: 'blocked', started_at: NOW, blocked_by: [{ agent_id: 's' }] });
    expect(waiting.reopened).toBe('in_progress');
    expect(waiting.events.map((e) => e.event_type)).toEqual(['step_blocked']);

    const done = changeStepStatus(working, { step_id: 'step_1', status: 'completed', result: 'ok' }, NOW).plan;
    const reopened = attachDependencies(done, 'step_1', [sub], {}, NOW);
    expect(reopened.step).toMatchObject({ status: 'blocked', result: 'ok' });
    expect(reopened.step.completed_at).toBeUndefined();
    expect(reopened.reopened).toBe('completed');
  });

  it('keeps the status of a step in progress whose dependencies had all ended, and still announces them', () => {
    const ended = changeStepStatus(running('ss', 's', ['x']), { step_id: 'step_1', status: 'completed' }, NOW).plan;
    const working = changeStepStatus(running('pp', 'parent', ['w']), { step_id: 'step_1', status: 'in_progress' }, NOW);
    const out = attachDependencies(working.plan, 'step_1', [{ plan: ended, step_id: 'step_1' }], {}, NOW);
    expect(out.step.status).toBe('in_progress');
    expect(out.reopened).toBeUndefined();
    expect(out.step.received_outputs).toEqual({ 's:step_1': { status: 'completed', result: null, error: null } });
    expect(out.events.map((e) => e.event_type)).toEqual(['step_unblocked']);
  });

  it('unblocks exactly once, when the last of several dependencies resolves, in any order', () => {
    const subs = ['s1', 's2', 's3'].map((id) => running(id, id, ['final']));
    const base = attachDependencies(
      running('pp', 'parent', ['w']),
      'step_1',
      subs.map((plan) => ({ plan, step_id: 'step_1' })),
      {},
      NOW,
    ).plan;
    for (const order of [
      [0, 1, 2],
      [2, 0, 1],
      [1, 2, 0],
    ]) {
      const plan = structuredClone(base);
      const unblocks = order.flatMap((i) => {
        const sub = subs[i] as Plan;
        const ended = changeStepStatus(sub, { step_id: 'step_1', status: 'completed', output: { i } }, NOW).step;
        // Each delivery twice: a repeated resolution changes nothing.
        return [
          ...applyResolution(plan, 'step_1', { agent_id: sub.agent_id, plan_id: sub.plan_id, step: ended }, NOW),
          ...applyResolution(plan, 'step_1', { agent_id: sub.agent_id, plan_id: sub.plan_id, step: ended }, NOW),
        ];
      });
      expect(unblocks.map((e) => e.event_type)).toEqual(['step_unblocked']);
      // Listed in the fan-in's order (the keys' bytes), whatever order they arrived in.
      expect(unblocks[0]?.payload.received_outputs).toEqual(['s1:step_1', 's2:step_1', 's3:step_1']);
      expect(plan.steps[0]).toMatchObject({ status: 'pending', blocked_by: [] });
      expect(Object.keys(plan.steps[0]?.received_outputs ?? {}).sort()).toEqual([
        's1:step_1',
        's2:step_1',
        's3:step_1',
      ]);
    }
  });
});
