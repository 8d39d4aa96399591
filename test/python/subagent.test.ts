import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recordEvents, startedPlan } from '../helpers/event-log.ts';
import { startHarness, type Harness } from '../helpers/servers.ts';

const root = new URL('../../', import.meta.url).pathname;
/** Debian's interpreter, where python3-socketio is installed (not whatever python3 comes first on PATH). */
const PYTHON = '/usr/bin/python3';

/** The subagent as a child process: what it wrote so far, and how it ended. */
const startPython = (env: NodeJS.ProcessEnv, args = ['--wait-for-dependent']) => {
  // PLANHUB_TOKEN from the environment running the tests must not stand in for the credentials a test gives.
  const { PLANHUB_TOKEN: _token, ...inherited } = process.env;
  const child = spawn(PYTHON, ['examples/python/subagent.py', ...args], {
    cwd: root,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  return { done, stderr: () => stderr, stop };
};

const runPython = (env: NodeJS.ProcessEnv, args?: string[]) => startPython(env, args).done;

describe('a Python subagent (examples/python/subagent.py) speaking the wire protocol', () => {
  let h: Harness;
  let stopPython: (() => void) | undefined;
  afterEach(async () => {
    stopPython?.();
    stopPython = undefined;
    await h.close();
  });

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

  it('says it waits for approval and how to give it, then goes on once a user approves (default policy)', async () => {
    h = await startHarness('memory');
    const python = startPython({ PLANHUB_URL: h.url, PLANHUB_WORKSPACE: 'ws', PLANHUB_AGENT: 'py-waiting' }, []);
    stopPython = python.stop;
    const planId = await vi.waitFor(
      () => {
        const line = /^waiting for approval: planhub approve (\S+) -w ws --url \S+ \(or the dashboard\)$/m.exec(
          python.stderr(),
        );
        if (!line?.[1]) throw new Error(`not waiting yet; stderr so far: ${python.stderr()}`);
        return line[1];
      },
      { timeout: 15_000, interval: 50 },
    );
    const user = await h.client('alice', { role: 'user' });
    await user.plan_approve({ plan_id: planId });

    const finished = await python.done;
    expect(finished.code).toBe(0);
    expect(JSON.parse(finished.stdout)).toMatchObject({ plan_id: planId, completed: 'step_1' });
  });

  it('goes on when a user approves at once, between its two startPlan calls', async () => {
    h = await startHarness('memory');
    // A user who approves the moment a plan asks (told by the node itself, a push sooner than any client's): the
    // decision usually lands before the subagent's second startPlan.
    const user = await h.client('alice', { role: 'user' });
    h.server.services.hub.listen('ws', (event) => {
      if (event.event_type === 'plan_approval_requested' && event.source_plan_id)
        void user.plan_approve({ plan_id: event.source_plan_id }).catch(() => undefined);
    });
    for (let run = 0; run < 3; run++) {
      const finished = await runPython(
        { PLANHUB_URL: h.url, PLANHUB_WORKSPACE: 'ws', PLANHUB_AGENT: `py-quick-${run}` },
        [],
      );
      expect(finished.stderr).not.toContain('Plan already started');
      expect(finished.code).toBe(0);
    }
    // The second startPlan repeats the first one's request_id: a plan approved in between is answered, not refused.
    const metrics = await (await fetch(`${h.url}/metrics`)).text();
    expect(metrics).not.toMatch(/^planhub_calls_total\{[^}]*code="FAILED_PRECONDITION"/m);
    expect(metrics).not.toMatch(/^planhub_calls_total\{[^}]*tool="getPlanStatus"/m);
  });

  it("reports a secret-mode node's refusal (UNAUTHENTICATED and its reason) when it connects without a token", async () => {
    h = await startHarness('memory', { secret: 'python-test-secret-0123456789' });
    const finished = await runPython(
      { PLANHUB_URL: h.url, PLANHUB_WORKSPACE: 'ws', PLANHUB_AGENT: 'py-tokenless' },
      [],
    );
    expect(finished.code).toBe(1);
    expect(finished.stdout).toBe('');
    expect(finished.stderr).toMatch(/^planhub: UNAUTHENTICATED: This server is in secret mode: /);
    expect(finished.stderr).toContain('planhub token');
  });

  it('says what it waited for and how to go on when no step comes to depend on it, instead of a traceback', async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    const finished = await runPython({
      PLANHUB_URL: h.url,
      PLANHUB_WORKSPACE: 'ws',
      PLANHUB_AGENT: 'py-alone',
      PLANHUB_WAIT_SECONDS: '1',
    });
    expect(finished.code).toBe(1);
    expect(finished.stdout).toBe('');
    expect(finished.stderr).toBe(
      "planhub: DEADLINE_EXCEEDED: no step of another agent started waiting on py-alone's step_1 (run the parent " +
        'that depends on it, or raise PLANHUB_WAIT_SECONDS) within 1 s\n',
    );
  });
});
