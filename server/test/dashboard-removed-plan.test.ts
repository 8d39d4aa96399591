import { PlanHubError } from '@planhub/shared';
import { describe, expect, it, vi } from 'vitest';
import type { Connection } from '../src/dashboard/web/connection.ts';
import { REMOVED_PLAN_TEXT } from '../src/dashboard/web/call-errors.ts';
import { createPageLoader } from '../src/dashboard/web/pages.ts';

/**
 * A plan page open while retention removes its plan: the read after a reconnection answers NOT_FOUND. The notice was
 * stored, but the copy read before stayed, and the page shows a plan whenever it has one.
 */
describe("a plan page's loader once its plan is removed", () => {
  it('drops the copy it read before, so the page says the plan is not kept', async () => {
    let removed = false;
    const plan = { plan_id: 'p1', title: 'T', status: 'completed', steps: [] };
    const conn = {
      call: (tool: string) => {
        if (tool !== 'getPlanStatus') return Promise.resolve({ events: [], count: 0, scanned: 0, next_before: null });
        return removed
          ? Promise.reject(new PlanHubError('NOT_FOUND', 'Plan p1 does not exist'))
          : Promise.resolve(plan);
      },
    } as unknown as Connection;
    const loader = createPageLoader({ conn: () => conn, changed: () => {}, lose: () => {}, shown: () => 'p1' });
    loader.want('p1');
    await vi.waitFor(() => expect(loader.get('p1')?.plan).toBeDefined());
    removed = true;
    loader.reloadShown('p1');
    await vi.waitFor(() => expect(loader.get('p1')?.error).toBe(REMOVED_PLAN_TEXT));
    expect(loader.get('p1')?.plan).toBeUndefined();
  });
});
