import type { EventEnvelope } from '@planhub/shared';
import { EVENT_TYPES } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { canonicalFilter, isEcho, matchesFilter, sameFilter, shouldPush } from '../src/events/match.ts';

const event = (over: Partial<EventEnvelope> = {}): EventEnvelope => ({
  event_id: '1-0',
  event_type: 'step_completed',
  timestamp: '2026-01-01T00:00:00.000Z',
  workspace: 'ws',
  source_agent: 'sub',
  source_plan_id: 'p1',
  source_plan_title: 'P',
  source_step_id: 'step_1',
  source_step_description: 'x',
  source_step_sequence: 1,
  payload: {},
  ...over,
});

describe('subscription matching', () => {
  it('matches agent ("*" or one), event types, plan and step', () => {
    const e = event();
    expect(matchesFilter({ agent_id: '*', event_types: ['step_completed'] }, e)).toBe(true);
    expect(matchesFilter({ event_types: ['step_completed'] }, e)).toBe(true);
    expect(matchesFilter({ agent_id: 'other', event_types: ['step_completed'] }, e)).toBe(false);
    expect(matchesFilter({ event_types: ['step_failed'] }, e)).toBe(false);
    expect(matchesFilter({ event_types: ['step_completed'], plan_id: 'p1', step_id: 'step_1' }, e)).toBe(true);
    expect(matchesFilter({ event_types: ['step_completed'], plan_id: 'p2' }, e)).toBe(false);
    expect(matchesFilter({ event_types: ['step_completed'], step_id: 'step_2' }, e)).toBe(false);
    expect(matchesFilter({}, e)).toBe(true);
  });

  it("does not push an agent's own events back to it, except the step_unblocked another agent caused", () => {
    const filters = [{ event_types: ['step_completed', 'step_unblocked'] as const }];
    const sub = { workspace: 'ws', agent_id: 'sub', role: 'agent' as const };
    expect(shouldPush(sub, filters, event())).toBe(false);
    expect(shouldPush({ ...sub, role: 'dashboard' }, filters, event())).toBe(true);
    expect(shouldPush({ ...sub, role: 'user' }, filters, event())).toBe(true);
    const unblocked = event({
      event_type: 'step_unblocked',
      payload: { received_outputs: ['other:step_3'], unblocked_by: 'other:step_3', unblocked_by_agent: 'other' },
    });
    expect(shouldPush(sub, filters, unblocked)).toBe(true);
    const selfCaused = event({
      event_type: 'step_unblocked',
      payload: { received_outputs: ['sub:step_3'], unblocked_by: 'sub:step_3', unblocked_by_agent: 'sub' },
    });
    expect(shouldPush(sub, filters, selfCaused)).toBe(false);
    // Identity is exact: agent "sub:x" is another agent, though its key starts with "sub:".
    const prefixed = event({
      event_type: 'step_unblocked',
      payload: { received_outputs: ['sub:x:step_3'], unblocked_by: 'sub:x:step_3', unblocked_by_agent: 'sub:x' },
    });
    expect(shouldPush(sub, filters, prefixed)).toBe(true);
    // The object form names the agent itself; the string form's events (logged earlier) still read.
    const objectForm = (agent: string) =>
      event({
        event_type: 'step_unblocked',
        payload: {
          received_outputs: [`${agent}:step_3`],
          outputs: { [`${agent}:step_3`]: { ok: true } },
          unblocked_by: { agent_id: agent, plan_id: 'p1', step_id: 'step_3' },
          unblocked_by_agent: agent,
        },
      });
    expect(shouldPush(sub, filters, objectForm('other'))).toBe(true);
    expect(shouldPush(sub, filters, objectForm('sub'))).toBe(false);
    expect(shouldPush({ ...sub, agent_id: 'parent' }, filters, event({ workspace: 'elsewhere' }))).toBe(false);
    expect(shouldPush({ ...sub, agent_id: 'parent' }, [], event())).toBe(false);
  });

  const agent = { agent_id: 'sub', role: 'agent' as const };
  const unblockedBy = (payload: Record<string, unknown>) =>
    event({ event_type: 'step_unblocked', payload: { received_outputs: ['k'], ...payload } });

  it.each(EVENT_TYPES.filter((t) => t !== 'step_unblocked'))(
    'holds back an own %s from its agent only, whatever its payload',
    (type) => {
      for (const payload of [{}, { unblocked_by_agent: 'other', unblocked_by: 'other:step_1' }]) {
        expect(isEcho(agent, event({ event_type: type, payload }))).toBe(true);
        expect(isEcho({ ...agent, agent_id: 'main' }, event({ event_type: type, payload }))).toBe(false);
        expect(isEcho({ ...agent, role: 'user' }, event({ event_type: type, payload }))).toBe(false);
        expect(isEcho({ ...agent, role: 'dashboard' }, event({ event_type: type, payload }))).toBe(false);
      }
    },
  );

  it.each([
    [
      'the object form',
      { unblocked_by: { agent_id: 'sub', plan_id: 'p', step_id: 's' }, unblocked_by_agent: 'sub' },
      true,
    ],
    [
      'the object form naming another agent',
      { unblocked_by: { agent_id: 'other', plan_id: null, step_id: 's' } },
      false,
    ],
    ['the string form with its agent', { unblocked_by: 'sub:s', unblocked_by_agent: 'sub' }, true],
    ['the first string form, without its agent', { unblocked_by: 'sub:s' }, false],
    ['an object form whose agent is not a string', { unblocked_by: { agent_id: 7, step_id: 's' } }, false],
    ['a string form whose agent is not a string', { unblocked_by: 'sub:s', unblocked_by_agent: ['sub'] }, false],
    // Only who caused it is read (not the whole payload against its schema): the outputs do not matter here.
    [
      'the object form beside outputs of any shape',
      { unblocked_by: { agent_id: 'sub' }, outputs: 'not a record' },
      true,
    ],
  ])('reads who caused a step_unblocked from %s', (_form, payload, echo) => {
    expect(isEcho(agent, unblockedBy(payload))).toBe(echo);
  });

  it('delivers a step_unblocked whose payload does not fit its schema, as a lost wake-up would hang its agent', () => {
    expect(isEcho(agent, event({ event_type: 'step_unblocked', payload: { unblocked_by_agent: 'sub' } }))).toBe(false);
  });

  it('treats filters that differ only in order, duplicates or an explicit "*" as the same', () => {
    expect(
      sameFilter(
        { event_types: ['plan_created', 'step_completed'] },
        { agent_id: '*', event_types: ['step_completed', 'plan_created', 'plan_created'] },
      ),
    ).toBe(true);
    expect(sameFilter({ event_types: ['plan_created'] }, { event_types: ['plan_created'], plan_id: 'p' })).toBe(false);
    expect(canonicalFilter({ event_types: ['step_failed'], step_id: 's' })).toEqual({
      agent_id: '*',
      event_types: ['step_failed'],
      step_id: 's',
    });
  });
});
