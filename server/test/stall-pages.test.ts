import type { Plan } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { newPlan } from '../src/core/plans/plan-factory.ts';
import { createMemoryStore } from '../src/store/memory-store.ts';
import type { Store } from '../src/store/store.ts';
import { transact } from '../src/store/transact.ts';
import { savePlan } from '../src/tools/plan-access.ts';
import { findStalls, MIN_PAGE } from '../src/tools/stall-scan.ts';

const HOUR = 3600 * 1000;
const LONG_AGO = '2026-01-01T00:00:00.000Z';

/** `count` agents with one plan each, in order of appearance; the agent `stuck` left its first step in progress. */
const seed = async (store: Store, count: number, stuck: number) => {
  for (let a = 0; a < count; a++) {
    const plan: Plan = newPlan({
      plan_id: `plan${a}`,
      workspace: 'ws',
      agent_id: `agent${a}`,
      title: 'work',
      dialect: '000',
      steps: [{ description: 'one' }, { description: 'two' }],
      now: LONG_AGO,
    });
    plan.status = 'in_progress';
    plan.started_at = LONG_AGO;
    if (a === stuck) Object.assign(plan.steps[0] ?? {}, { status: 'in_progress', started_at: LONG_AGO });
    await transact(store, 'ws', async (tx) => savePlan(tx, plan));
  }
};

/** The store, counting the agent documents each load names. */
const counting = (store: Store) => {
  const agentDocs: number[] = [];
  const count = (keys: readonly string[]) => agentDocs.push(keys.filter((k) => k.startsWith('agent:')).length);
  const wrapped: Store = {
    ...store,
    limits: store.limits,
    load: (ws, keys) => (count(keys), store.load(ws, keys)),
    loadWith: (ws, keys, alongside) => (count(keys), store.loadWith(ws, keys, alongside)),
  };
  return { store: wrapped, agentDocs };
};

describe('the stall sweep, a page of agents at a time', () => {
  it('reads at most a page of agent documents per sweep and finds the stall in the page that holds it', async () => {
    const memory = createMemoryStore({ eventRetention: 1000 });
    await seed(memory, 250, 230);
    const { store, agentDocs } = counting(memory);
    const now = Date.parse(LONG_AGO) + HOUR;
    const pages: Array<{ next: number; stalled: string[]; read: number }> = [];
    let from = 0;
    for (let sweep = 0; sweep < 4; sweep++) {
      agentDocs.length = 0;
      const scan = await findStalls(store, 'ws', now, 60_000, { from, pages: 3 });
      pages.push({
        next: scan.next,
        stalled: scan.stalls.map((s) => `${s.plan.plan_id}:${s.step.id}`),
        read: agentDocs.reduce((a, b) => a + b, 0),
      });
      from = scan.next;
    }
    // 250 agents in 3 pages would be 84 each; a page is at least MIN_PAGE (100): 100, 100, then the last 50.
    expect(MIN_PAGE).toBe(100);
    expect(pages).toEqual([
      { next: 100, stalled: [], read: 100 },
      { next: 200, stalled: [], read: 100 },
      { next: 0, stalled: ['plan230:step_1'], read: 50 },
      { next: 100, stalled: [], read: 100 },
    ]);
  });

  it('takes bigger pages for a bigger index, so a full pass still takes the sweeps it was given', async () => {
    const memory = createMemoryStore({ eventRetention: 1000 });
    await seed(memory, 450, 449);
    const { store, agentDocs } = counting(memory);
    const now = Date.parse(LONG_AGO) + HOUR;
    const first = await findStalls(store, 'ws', now, 60_000, { from: 0, pages: 3 });
    expect(first).toEqual({ stalls: [], next: 150 });
    expect(agentDocs.reduce((a, b) => a + b, 0)).toBe(150);
    const last = await findStalls(store, 'ws', now, 60_000, { from: 300, pages: 3 });
    expect(last.next).toBe(0);
    expect(last.stalls.map((s) => s.plan.plan_id)).toEqual(['plan449']);
    // A cursor past the end (agents removed meanwhile, or another index) starts over.
    expect((await findStalls(store, 'ws', now, 60_000, { from: 10_000, pages: 3 })).next).toBe(150);
  });

  it('reads every agent in one sweep without a page, as before', async () => {
    const memory = createMemoryStore({ eventRetention: 1000 });
    await seed(memory, 120, 0);
    const { store, agentDocs } = counting(memory);
    const scan = await findStalls(store, 'ws', Date.parse(LONG_AGO) + HOUR, 60_000);
    expect(scan.next).toBe(0);
    expect(scan.stalls.map((s) => s.plan.plan_id)).toEqual(['plan0']);
    expect(agentDocs.reduce((a, b) => a + b, 0)).toBe(120);
  });
});
