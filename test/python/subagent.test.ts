import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { recordEvents, startedPlan } from '../helpers/event-log.ts';
import { startHarness, type Harness } from '../helpers/servers.ts';

const root = new URL('../../', import.meta.url).pathname;
/** Debian's interpreter, where python3-socketio is installed (not whatever python3 comes first on PATH). */
const PYTHON = '/usr/bin/python3';

const runPython = (
  env: NodeJS.ProcessEnv,
  args = ['--wait-for-dependent'],
): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(PYTHON, ['examples/python/subagent.py', ...args], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });

describe('a Python subagent (examples/python/subagent.py) speaking the wire protocol', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it("unblocks a JavaScript parent's step with its output: a fan-in across languages", async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    const parent = await h.client('parent');
    const log = recordEvents(parent);
    await startedPlan(parent, 'Ship the feature', ['Spawn the Python subagent']);
    await parent.subscribeToTasks({ event_types: ['plan_created', 'step_unblocked'] });
    const python = runPython({ PLANHUB_URL: h.url, PLANHUB_WORKSPACE: 'ws', PLANHUB_AGENT: 'py-subagent' });

    await log.next((e) => e.event_type === 'plan_created' && e.source_agent === 'py-subagent');
    const dependent = await parent.addDependentStep({
      description: 'Merge the Python research',
      depends_on: [{ agent_id: 'py-subagent', step_id: 'step_1' }],
    });
    expect(dependent.status).toBe('blocked');

    const finished = await python;
    expect(finished.stderr).toBe('');
    expect(finished.code).toBe(0);
    const report = JSON.parse(finished.stdout) as { output: unknown };
    expect(report.output).toEqual({ language: 'python', facts: ['socket.io v4', 'one call, one acknowledgement'] });

    const unblocked = await log.next((e) => e.event_type === 'step_unblocked');
    expect(unblocked).toMatchObject({
      source_agent: 'parent',
      source_step_id: dependent.step_id,
      payload: {
        unblocked_by: { agent_id: 'py-subagent', step_id: 'step_1' },
        outputs: { 'py-subagent:step_1': report.output },
      },
    });
    const status = await parent.getPlanStatus({});
    expect(status.steps.find((s) => s.step_id === dependent.step_id)?.received_outputs).toEqual({
      'py-subagent:step_1': report.output,
    });
  });

  it('lets the parent depend on the Python subagent before it exists (spawn-then-depend)', async () => {
    h = await startHarness('redis', { approvalPolicy: 'auto' });
    const parent = await h.client('parent');
    const log = recordEvents(parent);
    const own = await startedPlan(parent, 'Ship the feature', ['Spawn the Python subagent']);
    await parent.subscribeToTasks({ event_types: ['step_unblocked'] });
    // Depend at once, then spawn: the dependency waits for a plan the subagent has not created yet.
    const dependent = await parent.addDependentStep({
      description: 'Merge the Python research',
      depends_on: [{ agent_id: 'py-spawned', step_id: 'step_1' }],
    });
    expect(dependent).toMatchObject({ status: 'blocked', blocked_by: [{ agent_id: 'py-spawned', step_id: 'step_1' }] });
    const finished = await runPython({ PLANHUB_URL: h.url, PLANHUB_WORKSPACE: 'ws', PLANHUB_AGENT: 'py-spawned' }, [
      '--wait-for-dependent',
    ]);
    expect(finished.stderr).toBe('');
    expect(finished.code).toBe(0);
    const report = JSON.parse(finished.stdout) as { plan_id: string; output: unknown };
    const unblocked = await log.next((e) => e.event_type === 'step_unblocked');
    expect(unblocked).toMatchObject({
      source_plan_id: own.plan_id,
      source_step_id: dependent.step_id,
      payload: {
        outputs: { 'py-spawned:step_1': report.output },
        unblocked_by: { agent_id: 'py-spawned', plan_id: report.plan_id, step_id: 'step_1' },
      },
    });
  });
});
