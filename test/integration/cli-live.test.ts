import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import type { EventEnvelope } from '@planhub/client-sdk';
import { renderTodoBox } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { eventually } from '../helpers/eventually.ts';
import { spendWindow } from '../helpers/spend-window.ts';
import { CLI } from './cli-process.ts';

const run = promisify(execFile);
const CLEAR = '\x1b[H\x1b[2J';

/** A long-running CLI command; `output()` is everything it printed so far. */
const start = (command: string, args: string[]) => {
  let output = '';
  const child: ChildProcess = spawn(command, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return {
    output: () => output,
    stop: () => {
      if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGKILL');
    },
  };
};

// Each test launches the CLI from source through tsx (1.4 s of CPU per launch on this project's 2-core machines):
// a loaded run needs more than the default deadline. Nothing in them is timed.
describe('live CLI commands', { timeout: 120_000 }, () => {
  let h: Harness;
  const stops: (() => void)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) stop();
    await h.close();
  });

  it('planhub watch redraws the plan rendering in a terminal when a step completes', async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    await agent.createPlan({ title: 'Refactor auth module', steps: ['Review', 'Extract'] });
    await agent.startPlan({});
    // `script` gives the command a pseudo-terminal, so it draws the way it does for a person.
    const watch = start('script', [
      '-q',
      '-e',
      '-c',
      `${process.execPath} ${CLI} watch --url ${h.url} --workspace ws --agent main`,
      '/dev/null',
    ]);
    stops.push(watch.stop);
    await eventually(() => expect(watch.output()).toContain('[ ] step_1: Review'));
    await agent.setStepStatus({ step_id: 'step_1', status: 'completed' });
    const expected = [
      'PlanHub · workspace ws · live',
      '',
      '== main ==',
      'Current Plan: Refactor auth module',
      'Status: in_progress',
      '',
      'Steps:',
      '  [x] step_1: Review',
      '  [ ] step_2: Extract',
      '',
      'Progress: 1/2 (50%)',
    ].join('\r\n');
    await eventually(() => {
      const frames = watch.output().split(CLEAR);
      expect(frames.at(-1)).toContain(expected);
    });

    // The agent's todo list shows under its plan, in seed 002's box with its terminal styles.
    await agent.todo_write({
      todos: [{ id: '1', content: 'Extract the token check', status: 'in_progress', priority: 'high' }],
    });
    const box = renderTodoBox([{ content: 'Extract the token check', status: 'in_progress' }], { title: 'Todos' });
    expect(box).toContain('\x1b[1m');
    await eventually(() => expect(watch.output().split(CLEAR).at(-1)).toContain(box.split('\n').join('\r\n')));
  });

  it('planhub watch reads the overview again after a refused re-read, so a new plan shows without another event', async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto', limits: { callsPerSecond: 2, rateWindowSeconds: 6 } });
    const agent = await h.client('main');
    const watch = start(process.execPath, [
      CLI,
      'watch',
      '--as',
      'planhub-cli',
      '--url',
      h.url,
      '--workspace',
      'ws',
      '--agent',
      'main',
    ]);
    stops.push(watch.stop);
    await eventually(() => expect(watch.output()).toContain('PlanHub · workspace ws · live'));
    // plan_created asks for a re-read, refused: the CLI's agent spent its window from another connection.
    await spendWindow(await h.client('planhub-cli', { retries: 0 }));
    await agent.createPlan({ title: 'Shown after a refusal', steps: ['Review'] });
    await eventually(() => expect(watch.output()).toContain('error: Too many calls'));
    expect(watch.output()).not.toContain('Shown after a refusal');
    await eventually(() => expect(watch.output()).toContain('Shown after a refusal'));
    const last = watch.output().split('\n---\n').at(-2) ?? '';
    expect(last).toContain('PlanHub · workspace ws · live');
    expect(last).toContain('Shown after a refusal');
  });

  it('planhub watch cuts every line to the width of the terminal', async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    await agent.createPlan({
      title: 'A plan title far longer than the narrow terminal it is shown in',
      steps: ['A step description that also runs past the right edge of the terminal'],
    });
    await agent.startPlan({});
    const watch = start('script', [
      '-q',
      '-e',
      '-c',
      `stty cols 32 rows 40; ${process.execPath} ${CLI} watch --url ${h.url} --workspace ws --agent main`,
      '/dev/null',
    ]);
    stops.push(watch.stop);
    await eventually(() => expect(watch.output()).toContain('step_1'));
    // eslint-disable-next-line no-control-regex
    const visible = (line: string) => line.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
    const frame = watch.output().split(CLEAR).at(-1) ?? '';
    const lines = frame.split('\r\n').map(visible);
    expect(lines.some((l) => l.startsWith('Current Plan: A plan title') && l.endsWith('…'))).toBe(true);
    expect(lines.filter((l) => [...l].length > 32)).toEqual([]);
  });

  it('planhub events --follow --json prints every event as one JSON line, in order, with no gap between its first read and the live stream', async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    await agent.createPlan({ title: 'Before', steps: ['x'] });
    const follow = start(process.execPath, [CLI, 'events', '--follow', '--json', '--url', h.url, '--workspace', 'ws']);
    stops.push(follow.stop);
    const lines = () =>
      follow
        .output()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as EventEnvelope);
    await eventually(() => expect(lines().map((e) => e.event_type)).toEqual(['plan_created']));
    // Whether these land before or after the follower subscribes, it resumes from its first read: no gap, no repeat.
    await agent.startPlan({});
    await agent.setStepStatus({ step_id: 'step_1', status: 'completed' });
    const { events } = await agent.getTaskEvents({ limit: 100 });
    await eventually(() => expect(lines().map((e) => e.event_id)).toEqual(events.map((e) => e.event_id)));
    expect(lines().map((e) => e.event_type)).toEqual([
      'plan_created',
      'plan_approved',
      'plan_started',
      'step_completed',
    ]);
  });

  it('planhub events --follow ends quietly when the reader of its output goes away (| head -1)', async () => {
    h = await startHarness('memory');
    const agent = await h.client('main');
    await agent.todo({ action: 'create', todos: [] });
    const child = spawn(process.execPath, [CLI, 'events', '--follow', '--url', h.url, '--workspace', 'ws'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stops.push(() => child.kill('SIGKILL'));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Like `head -1`: read the first line, then close the pipe.
    await new Promise((resolve) => child.stdout.once('data', resolve));
    child.stdout.destroy();
    // Keep events coming until the follower has noticed that nobody reads its output any more.
    let done = false;
    void exited.then(() => (done = true));
    while (!done) await agent.todo({ action: 'update', todos: [] });
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
  });

  it('planhub approve releases an agent waiting in startPlan and records who decided; planhub reject sends the reason', async () => {
    h = await startHarness('memory');
    const agent = await h.client('main');
    const first = await agent.createPlan({ title: 'First', steps: ['x'] });
    const waiting = agent.startPlan({});
    await eventually(async () => expect((await agent.getPlanStatus({})).status).toBe('awaiting_approval'));
    const approved = await run(process.execPath, [
      CLI,
      'approve',
      first.plan_id,
      '--as',
      'alice',
      '--url',
      h.url,
      '--workspace',
      'ws',
    ]);
    expect(approved.stdout).toBe(`Plan ${first.plan_id} approved; execution begins. (decided by alice)\n`);
    expect(await waiting).toMatchObject({ plan_id: first.plan_id, status: 'in_progress' });
    const { events } = await agent.getTaskEvents({ event_types: ['plan_approved'] });
    expect(events.map((e) => e.payload.approved_by)).toEqual(['alice']);

    await agent.completePlan({ status: 'failed' });
    const second = await agent.createPlan({ title: 'Second', steps: ['y'] });
    const rejecting = agent.startPlan({});
    await eventually(async () => expect((await agent.getPlanStatus({})).status).toBe('awaiting_approval'));
    await run(process.execPath, [
      CLI,
      'reject',
      second.plan_id,
      '--reason',
      'Too risky',
      '--as',
      'bob',
      '--url',
      h.url,
      '-w',
      'ws',
    ]);
    expect(await rejecting).toMatchObject({ status: 'rejected', reason: 'Too risky' });
    const rejected = await agent.getTaskEvents({ event_types: ['plan_rejected'] });
    expect(rejected.events.map((e) => e.payload.rejected_by)).toEqual(['bob']);
  });
});
