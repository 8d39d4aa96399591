import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { runCli } from './cli-process.ts';

const EXIT_REFUSED = 1;

const planhub = (...args: string[]) => runCli(args);

const MISSING =
  'planhub: no plan "nope" in workspace ws: the id is wrong, or the plan finished and was removed. ' +
  "planhub plan --agent <id> shows an agent's current plan; planhub events --agent <id> shows its recent events.\n";

// Each launch loads the CLI from source through tsx (about 1.4 s of CPU on this project's 2-core machines).
describe('a plan id the node does not store, on the command line', { timeout: 90_000 }, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('memory');
  });
  afterAll(() => h.close());

  for (const args of [
    ['approve', 'nope'],
    ['reject', 'nope'],
    ['plan', '--plan', 'nope'],
  ])
    it(`planhub ${args.join(' ')} names the commands that help, not the tools a model calls (exit 1)`, async () => {
      const outcome = await planhub(...args, '--url', h.url, '-w', 'ws');
      expect(outcome).toMatchObject({ code: EXIT_REFUSED, stdout: '' });
      expect(outcome.stderr).toBe(MISSING);
    });

  it('leaves other refusals of a named plan in the node words: a plan that waits for nothing', async () => {
    const agent = await h.client('main');
    const plan = await agent.createPlan({ title: 'Not started', steps: ['Wait'] });
    const outcome = await planhub('approve', plan.plan_id, '--url', h.url, '-w', 'ws');
    expect(outcome).toMatchObject({ code: EXIT_REFUSED, stdout: '' });
    expect(outcome.stderr).toBe(
      `planhub: Plan ${plan.plan_id} is pending, not awaiting approval; call startPlan first.\n`,
    );
  });
});
