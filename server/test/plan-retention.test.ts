import { describe, expect, it } from 'vitest';
import type { AgentDoc, AgentPlanRef } from '../src/core/agents/agent-doc.ts';
import { currentPlanId } from '../src/core/agents/agent-doc.ts';
import { finishedPlansPastRetention, missingPlanMessage, withoutPlans } from '../src/core/agents/retention.ts';

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();

const ref = (plan_id: string, finished: boolean, changedMinute: number): AgentPlanRef => ({
  plan_id,
  dialect: '000',
  finished,
  created_at: at(0),
  changed_at: at(changedMinute),
});

const agent = (...plans: AgentPlanRef[]): AgentDoc => ({ agent_id: 'a', plans });

const policy = (kept: number, batch = 100) => ({ kept, batch });

describe('which finished plans retention removes', () => {
  it('removes nothing while the agent has at most the kept number of finished plans', () => {
    const doc = agent(ref('p1', true, 1), ref('p2', true, 2), ref('p3', false, 3));
    expect(finishedPlansPastRetention(doc, policy(2))).toEqual([]);
    expect(finishedPlansPastRetention(agent(), policy(1))).toEqual([]);
  });

  it('removes the finished plans past the kept newest, oldest first, and never an unfinished one', () => {
    const doc = agent(
      ref('old-open', false, 0),
      ref('f1', true, 1),
      ref('f2', true, 2),
      ref('open', false, 3),
      ref('f3', true, 4),
      ref('f4', true, 5),
    );
    expect(finishedPlansPastRetention(doc, policy(2))).toEqual(['f1', 'f2']);
    expect(finishedPlansPastRetention(doc, policy(1))).toEqual(['f1', 'f2', 'f3']);
  });

  it('keeps the plans that finished last, not the ones created last', () => {
    // p1 was created first but finished after p2 and p3.
    const doc = agent(ref('p1', true, 9), ref('p2', true, 2), ref('p3', true, 3));
    expect(finishedPlansPastRetention(doc, policy(1))).toEqual(['p2', 'p3']);
    expect(finishedPlansPastRetention(doc, policy(2))).toEqual(['p2']);
  });

  it('breaks a tie of change times by the index order: the later entry is the newer plan', () => {
    const doc = agent(ref('a', true, 5), ref('b', true, 5), ref('c', true, 5));
    expect(finishedPlansPastRetention(doc, policy(1))).toEqual(['a', 'b']);
  });

  it('removes at most one batch per commit, the oldest first, so a long backlog shrinks over several writes', () => {
    const plans = Array.from({ length: 2000 }, (_, i) => ref(`p${i}`, true, i));
    const first = finishedPlansPastRetention(agent(...plans), policy(20, 200));
    expect(first).toEqual(plans.slice(0, 200).map((p) => p.plan_id));
    let doc = agent(...plans);
    let writes = 0;
    for (let batch; (batch = finishedPlansPastRetention(doc, policy(20, 200))).length > 0; writes++)
      doc = withoutPlans(doc, new Set(batch));
    expect(writes).toBe(Math.ceil((2000 - 20) / 200));
    expect(doc.plans.map((p) => p.plan_id)).toEqual(plans.slice(-20).map((p) => p.plan_id));
  });

  it('leaves the current plan and the index order of what it keeps unchanged', () => {
    const doc = agent(ref('f1', true, 1), ref('open', false, 2), ref('f2', true, 3), ref('f3', true, 4));
    const kept = withoutPlans(doc, new Set(finishedPlansPastRetention(doc, policy(2))));
    expect(kept.plans.map((p) => p.plan_id)).toEqual(['open', 'f2', 'f3']);
    expect(currentPlanId(kept)).toBe('open');
  });
});

describe('the answer for a plan that is not stored', () => {
  it('says it may have been removed by retention and where its history is', () => {
    const message = missingPlanMessage('abcd1234');
    expect(message).toMatch(/^Plan abcd1234 does not exist in this workspace/);
    expect(message).toMatch(/finished and was removed/);
    expect(message).toMatch(/getTaskEvents with plan_id "abcd1234"/);
  });
});
