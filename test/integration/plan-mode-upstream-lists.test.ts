import { afterEach, describe, expect, it } from 'vitest';
import { expectRefusal } from '../helpers/refusals.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

/**
 * Triggerfish checks only `Array.isArray` for a step's files and depends_on, the plan's files_to_create and
 * files_to_modify, and plan_modify's new_files: what the items are is never checked. PlanHub takes what upstream takes
 * (docs/dialects.md, seed 002) and keeps what it stores readable: ids as numbers, files as text.
 */
describe.each(STORE_KINDS)(
  "dialect 002: plan lists take the items upstream's Array.isArray lets in (%s store)",
  (store) => {
    let h: Harness;
    afterEach(async () => h.close());

    const inPlanMode = async (approvalPolicy: 'auto' | 'owner-or-user' = 'auto') => {
      h = await startHarness(store, { approvalPolicy });
      const agent = await h.client('main');
      await agent.plan_enter({ goal: 'G' });
      return agent;
    };

    it('reads step ids sent as text in depends_on as the numbers they spell, and drops empty ones', async () => {
      const agent = await inPlanMode();
      const exited = await agent.call('plan_exit', {
        plan: {
          summary: 's',
          approach: 'a',
          steps: [
            { id: 1, description: 'one' },
            { id: 2, description: 'two', depends_on: ['1', ''] },
          ],
        },
      });
      expect(exited.plan.steps[1]?.depends_on).toEqual([1]);
      // The dependency holds: step 2 waits for step 1 as if it had been sent as a number.
      await expectRefusal(
        agent.plan_step_complete({ step_id: 2, verification_result: 'x' }),
        'FAILED_PRECONDITION',
        /^Step 2 depends on step 1 \(pending\)/,
      );
    });

    it('reads file objects by their path and drops empty items, in every file list', async () => {
      const agent = await inPlanMode('owner-or-user');
      const exited = await agent.call('plan_exit', {
        plan: {
          summary: 's',
          approach: 'a',
          steps: [
            { id: 1, description: 'one', files: [{ path: 'src/a.ts', action: 'create' }, '', 'src/b.ts'] },
            { id: 2, description: 'two', files: [{ file: 'src/c.ts' }, { name: 'src/d.ts' }, { kind: 'doc' }] },
          ],
          files_to_create: [{ path: 'src/a.ts', purpose: 'new module' }],
          files_to_modify: ['', 'src/b.ts'],
        },
      });
      expect(exited.plan.steps.map((s) => s.files)).toEqual([
        ['src/a.ts', 'src/b.ts'],
        ['src/c.ts', 'src/d.ts', '{"kind":"doc"}'],
      ]);
      expect(exited.plan).toMatchObject({ files_to_create: ['src/a.ts'], files_to_modify: ['src/b.ts'] });
      expect(exited.markdown).toContain('src/a.ts');
      await agent.plan_approve({});
      const requested = await agent.call('plan_modify', {
        step_id: 1,
        reason: 'r',
        new_description: 'one, changed',
        new_files: [{ path: 'src/e.ts', action: 'create' }, ''],
      });
      expect(requested.status).toBe('modification_requested');
      const decided = await agent.plan_approve({ modification: true });
      expect(decided.step).toMatchObject({ id: 1, description: 'one, changed', files: ['src/e.ts'] });
    });

    it('keeps the bounds, and says what a depends_on item must be when it names no step', async () => {
      const agent = await inPlanMode();
      // Items no schema type admits, sent past the typed methods as a model would send them.
      const exit = (plan: unknown) => agent.call('plan_exit', plan as never);
      const plan = (extra: Record<string, unknown>) => ({
        plan: { summary: 's', approach: 'a', steps: [{ id: 1, description: 'one' }], ...extra },
      });
      const dependency = await expectRefusal(
        exit(plan({ steps: [{ id: 1, description: 'one', depends_on: ['first'] }] })),
        'INVALID_ARGUMENT',
      );
      expect(dependency.message).toContain('a number, or a string of one such as "2"');
      for (const files_to_create of [['x'.repeat(1001)], [{ path: 'x'.repeat(1001) }]]) {
        const long = await expectRefusal(exit(plan({ files_to_create })), 'INVALID_ARGUMENT');
        expect(long.message).toContain('a file path may be at most 1000 characters');
      }
      await expectRefusal(
        exit(plan({ files_to_create: Array.from({ length: 201 }, () => 'a.ts') })),
        'INVALID_ARGUMENT',
      );
      // No refusal blames a list for one empty item any more: an empty item is simply left out, and any other item
      // upstream lets through reads as text.
      const exited = await exit(plan({ files_to_create: [''], files_to_modify: [3, null, true] }));
      expect(exited.plan).toMatchObject({ files_to_create: [], files_to_modify: ['3', 'true'] });
    });
  },
);
