import { afterEach, describe, expect, it } from 'vitest';
import { startedPlan } from '../helpers/event-log.ts';
import { expectRefusal } from '../helpers/refusals.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

const NOT_CONNECTABLE = /is not an id any agent can connect as \(use letters, digits and \. _ : @ -/;

/**
 * A wait or an event filter naming an agent id no agent can connect as (the handshake refuses it) could never
 * match: a step waiting on "implementer " (a trailing space) stayed blocked for good. Such ids are refused at once,
 * naming the id and the rule; every id an agent can connect as, and "*" or "" for any agent in a filter, still pass.
 */
describe.each(STORE_KINDS)('agent ids no agent can connect as (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('refuses a dependency or an event filter naming one, and takes every id an agent can use', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const parent = await h.client('parent');
    await startedPlan(parent, 'Parent', ['first']);

    // "" is refused too, in upstream's words ("Each dependency must have agent_id and step_id"): seed-000 tests.
    for (const agent_id of ['implementer ', 'bad name!', 'x/y', '-lead']) {
      const waiting = parent.addDependentStep({ description: 'Use it', depends_on: [{ agent_id, step_id: 'step_1' }] });
      const err = await expectRefusal(waiting, 'INVALID_ARGUMENT', NOT_CONNECTABLE);
      expect(err.message).toContain(JSON.stringify(agent_id));
      await expectRefusal(
        parent.subscribeToTasks({ agent_id: 'bad name!', event_types: ['step_completed'] }),
        'INVALID_ARGUMENT',
        NOT_CONNECTABLE,
      );
    }
    await expectRefusal(parent.getTaskEvents({ agent_id: 'x/y' }), 'INVALID_ARGUMENT', NOT_CONNECTABLE);
    // With another argument wrong too (neither description nor step_id), the id's own reason still reads as such.
    const twoWrong = { title: 'x', depends_on: [{ agent_id: 'impl ', step_id: 's' }] } as never;
    const both = await expectRefusal(parent.addDependentStep(twoWrong), 'INVALID_ARGUMENT');
    expect(both.message).toMatch(/"impl " is not an id any agent can connect as/);
    // Nothing was written by the refused calls.
    expect((await parent.getPlanStatus({})).steps).toHaveLength(1);

    const waiting = await parent.addDependentStep({
      description: 'Use it',
      depends_on: [{ agent_id: 'team.lead@host:impl-2_b', step_id: 'step_1' }],
    });
    expect(waiting).toMatchObject({ status: 'blocked' });
    for (const agent_id of ['*', '', 'team.lead@host:impl-2_b'])
      expect(await parent.subscribeToTasks({ agent_id, event_types: ['step_completed'] })).toMatchObject({
        agent_id: agent_id === '' ? '*' : agent_id,
      });
    const any = await parent.getTaskEvents({ agent_id: '*', event_types: ['step_blocked'] });
    expect(any.events.map((e) => e.source_step_id)).toEqual(['step_2']);
  });
});
