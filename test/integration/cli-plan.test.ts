import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';

const run = promisify(execFile);
const CLI = new URL('../../client-sdk/bin/planhub.mjs', import.meta.url).pathname;

/** `planhub plan` for an agent of workspace "ws". */
const planCommand = (url: string, agent: string) =>
  run(process.execPath, [CLI, 'plan', '--url', url, '--workspace', 'ws', '--agent', agent]);

describe('planhub plan', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it("prints seed 000's rendering of an agent's plan", async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    await agent.createPlan({ title: 'Refactor auth module', steps: ['Review', 'Extract', 'Test', 'Update imports'] });
    await agent.startPlan({});
    await agent.setStepStatus({ step_id: 'step_1', status: 'completed' });
    await agent.setStepStatus({ step_id: 'step_2', status: 'completed' });
    await agent.setStepStatus({ step_id: 'step_3', status: 'in_progress' });
    const { stdout } = await planCommand(h.url, 'main');
    expect(stdout).toBe(
      [
        'Current Plan: Refactor auth module',
        'Status: in_progress',
        '',
        'Steps:',
        '  [x] step_1: Review',
        '  [x] step_2: Extract',
        '  [>] step_3: Test',
        '  [ ] step_4: Update imports',
        '',
        'Progress: 2/4 (50%)',
        '',
      ].join('\n'),
    );
  });

  it('exits non-zero with a clear message for an agent without a plan', async () => {
    h = await startHarness('memory');
    const failure = await planCommand(h.url, 'ghost').catch((err: { code: number; stderr: string }) => err);
    expect(failure).toMatchObject({ code: 1, stderr: 'planhub: Agent ghost has no plan in this workspace.\n' });
  });
});
