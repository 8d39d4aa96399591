import type { Plan } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '@planhub/server';
import { newPlan, savePlan, transact } from '@planhub/server';
import { findStalls, MIN_PAGE } from '../../server/src/tools/stall-scan.ts';
import { readCounting } from '../helpers/read-counting-store.ts';
import { storeFixture, type StoreFixture, type StoreFixtureKind } from '../helpers/stores.ts';

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

/** The store, and how many agent documents it has loaded so far. */
const counting = (store: Store) => {
  const { store: counted, reads } = readCounting(store);
  return { store: counted, agentDocs: () => reads.loadedKeys.filter((k) => k.startsWith('agent:')).length };
};

describe.each(['memory', 'redis'] as StoreFixtureKind[])(
  'the stall sweep, a page of agents at a time (%s store)',
  (kind) => {
    let fixture: StoreFixture | undefined;
    afterEach(async () => {
      await fixture?.close();
      fixture = undefined;
    });
    const open = () => (fixture = storeFixture(kind)).open();

    it('reads at most a page of agent documents per sweep and finds the stall in the page that holds it', async () => {
      const stored = open();
      await seed(stored, 250, 230);
      const { store, agentDocs } = counting(stored);
      const now = Date.parse(LONG_AGO) + HOUR;
      const pages: Array<{ next: number; stalled: string[]; read: number }> = [];
      let from = 0;
      for (let sweep = 0; sweep < 4; sweep++) {
        const before = agentDocs();
        const scan = await findStalls(store, 'ws', now, 60_000, { from, pages: 3 });
        pages.push({
          next: scan.next,
          stalled: scan.stalls.map((s) => `${s.plan.plan_id}:${s.step.id}`),
          read: agentDocs() - before,
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
      const stored = open();
      await seed(stored, 450, 449);
      const { store, agentDocs } = counting(stored);
      const now = Date.parse(LONG_AGO) + HOUR;
      const first = await findStalls(store, 'ws', now, 60_000, { from: 0, pages: 3 });
      expect(first).toEqual({ stalls: [], next: 150 });
      expect(agentDocs()).toBe(150);
      const last = await findStalls(store, 'ws', now, 60_000, { from: 300, pages: 3 });
      expect(last.next).toBe(0);
      expect(last.stalls.map((s) => s.plan.plan_id)).toEqual(['plan449']);
      // A cursor past the end (agents removed meanwhile, or another index) starts over.
      expect((await findStalls(store, 'ws', now, 60_000, { from: 10_000, pages: 3 })).next).toBe(150);
    });

    it('reads every agent in one sweep without a page, as before', async () => {
      const stored = open();
      await seed(stored, 120, 0);
      const { store, agentDocs } = counting(stored);
      const scan = await findStalls(store, 'ws', Date.parse(LONG_AGO) + HOUR, 60_000);
      expect(scan.next).toBe(0);
      expect(scan.stalls.map((s) => s.plan.plan_id)).toEqual(['plan0']);
      expect(agentDocs()).toBe(120);
    });
  },
);
