import { afterEach, describe, expect, it } from 'vitest';
import { refusingPort } from '../helpers/free-port.ts';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { runCli } from './cli-process.ts';

const planhub = (...args: string[]) => runCli(args);

describe('planhub command line', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  // Ten CLI launches, each loading the SDK from source through tsx (1.4 s of CPU each on this project's 2-core
  // machines): a loaded run needs more than the default deadline.
  it('gives every command its own --help, with the exit codes', { timeout: 120_000 }, async () => {
    for (const command of ['plan', 'watch', 'events', 'approve', 'reject', 'token']) {
      const help = await planhub(command, '--help');
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`Usage: planhub ${command}`);
      expect(help.stdout).toContain('3  unavailable');
    }
    expect((await planhub('events', '--help')).stdout).toContain('--json');
    expect((await planhub('approve', '--help')).stdout).toContain('--as <name>');
    const top = await planhub('--help');
    expect(top.stdout).toContain('2  usage: unknown command or option');
  });

  it('refuses unknown commands, unknown options and missing arguments with a message and exit code 2', async () => {
    const unknownCommand = await planhub('lsit');
    expect(unknownCommand).toMatchObject({ code: 2, stdout: '' });
    expect(unknownCommand.stderr).toContain("unknown command 'lsit'");
    const unknownOption = await planhub('plan', '--agnet', 'main');
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toContain("unknown option '--agnet'");
    const missing = await planhub('approve');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing required argument 'plan_id'");
    const badLimit = await planhub('events', '--limit', '0');
    expect(badLimit).toMatchObject({ code: 2, stderr: 'planhub: --limit takes a number from 1 to 500.\n' });
  });

  it('exits 3 naming the URL when no node answers, instead of waiting forever', async () => {
    const dead = `http://127.0.0.1:${await refusingPort()}`;
    const outcome = await planhub('plan', '--agent', 'main', '--url', dead, '--connect-timeout', '1000');
    expect(outcome.code).toBe(3);
    expect(outcome.stderr).toContain('Could not connect to PlanHub within 1000 ms');
    expect(outcome.stderr).toContain(dead);
  });

  it('exits 1 when the node refuses the call', async () => {
    h = await startHarness('memory');
    const outcome = await planhub('plan', '--agent', 'ghost', '--url', h.url, '-w', 'ws');
    expect(outcome).toMatchObject({ code: 1, stderr: 'planhub: Agent ghost has no plan in this workspace.\n' });
  });

  it('prints events one readable line each: time, type, agent/step and the payload fields', async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    await agent.createPlan({ title: 'Readable', steps: ['Look'] });
    await agent.startPlan({});
    await agent.setStepStatus({ step_id: 'step_1', status: 'completed', result: 'Saw it' });
    const { events } = await agent.getTaskEvents({ limit: 100 });
    const outcome = await planhub('events', '--url', h.url, '-w', 'ws');
    const lines = outcome.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(events.length);
    const completed = lines.find((l) => l.includes('step_completed'));
    expect(completed).toMatch(/^\d\d:\d\d:\d\d\.\d{3} {2}step_completed +main\/step_1 {2}/);
    expect(completed).toContain('result=Saw it');
    expect(lines.every((l) => !l.startsWith('{'))).toBe(true);
  });

  it('says on stderr when --after names no event of the log, and prints from the oldest kept event', async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    await agent.createPlan({ title: 'Readable', steps: ['Look'] });
    const outcome = await planhub('events', '--url', h.url, '-w', 'ws', '--after', 'garbage');
    expect(outcome.code).toBe(0);
    expect(outcome.stderr).toMatch(
      /^planhub: warning: after_event "garbage" is not an event id of this workspace's log/m,
    );
    expect(outcome.stdout).toContain('plan_created');
  });
});
