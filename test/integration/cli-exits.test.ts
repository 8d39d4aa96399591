import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { PlanHubClient } from '@planhub/client-sdk';
import { connect } from '@planhub/client-sdk';
import type { PlanHubServer } from '@planhub/server';
import { createServer, mintToken } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { within } from '../helpers/within.ts';
import { CLI, cliEnv, isFollowing, startCli } from './cli-process.ts';

const run = promisify(execFile);
const SECRET = 'cli-exits-secret-0123456789-abcdef';
const EXIT_REFUSED = 1;

// Each test launches the CLI from source through tsx (1.4 s of CPU per launch on this project's 2-core machines):
// a loaded run needs more than the default deadline. Nothing in them is timed.
describe('planhub commands that follow a node end when following becomes impossible', { timeout: 120_000 }, () => {
  const stops: (() => void)[] = [];
  const clients: PlanHubClient[] = [];
  let node: PlanHubServer | undefined;
  let nodeProcess: ServerProcess | undefined;
  afterEach(async () => {
    for (const stop of stops.splice(0)) stop();
    for (const client of clients.splice(0)) client.close();
    await node?.close();
    node = undefined;
    await nodeProcess?.stop('SIGKILL');
    nodeProcess = undefined;
  });

  /** A node in secret mode with one plan in workspace ws, so a reader has something to print first. */
  const secretNode = async () => {
    node = createServer({ port: 0, logLevel: 'silent', secret: SECRET, approvalPolicy: 'auto' });
    const { url } = await node.listen();
    const agent = await connect({
      url,
      agentId: 'main',
      token: await mintToken(SECRET, { workspace: 'ws', agent_id: 'main', role: 'agent' }, '1h'),
    });
    clients.push(agent);
    await agent.createPlan({ title: 'Something to show', steps: ['Look'] });
    return url;
  };

  /** A user token for workspace ws that expires `seconds` from now (to the second), and when. */
  const shortToken = async (seconds: number) => {
    const token = await mintToken(SECRET, { workspace: 'ws', agent_id: 'reader', role: 'user' }, seconds);
    const { exp } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number };
    return { token, expiresAt: exp * 1000 };
  };

  for (const command of [
    { name: 'events --follow', args: ['events', '--follow'], following: 'plan_created' },
    { name: 'watch', args: ['watch'], following: 'Something to show' },
  ])
    it(`planhub ${command.name} exits 1 with the node's reason once its token expires`, async () => {
      const url = await secretNode();
      const { token, expiresAt } = await shortToken(8);
      const cli = startCli([...command.args, '--url', url, '--token', token]);
      stops.push(cli.stop);
      await eventually(() => expect(cli.output()).toContain(command.following));
      await eventually(() => expect(isFollowing(cli.child.pid!)).toBe(true));
      // Connected and following before the expiry: the exit below is the live connection's end, not a refused start.
      expect(Date.now()).toBeLessThan(expiresAt);
      const ended = await within(cli.exited, expiresAt - Date.now() + 6000, 'still running');
      expect(ended).not.toBe('still running');
      if (ended === 'still running') return;
      expect(ended).toMatchObject({ code: EXIT_REFUSED, signal: null });
      expect(ended.at).toBeGreaterThanOrEqual(expiresAt);
      expect(cli.stderr()).toMatch(/^planhub: .*Token expired at .*\n$/);
    });

  it('planhub events --follow ends at once on Ctrl-C while its node is gone, instead of waiting for it', async () => {
    nodeProcess = await startServerProcess({});
    const agent = await connect({ url: nodeProcess.url, agentId: 'main', workspace: 'ws', retries: 0 });
    clients.push(agent);
    await agent.todo({ action: 'create', todos: [] });
    const cli = startCli(['events', '--follow', '--url', nodeProcess.url, '--workspace', 'ws']);
    stops.push(cli.stop);
    await eventually(() => expect(cli.output()).toContain('todos_updated'));
    await eventually(() => expect(isFollowing(cli.child.pid!)).toBe(true));
    await nodeProcess.stop('SIGKILL');
    nodeProcess = undefined;
    // The kernel closes the node's connections with it; a moment for the CLI to hear that it is disconnected.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const interruptedAt = Date.now();
    cli.child.kill('SIGINT');
    const ended = await within(cli.exited, 5000, 'still running');
    expect(ended).not.toBe('still running');
    if (ended === 'still running') return;
    expect(ended).toMatchObject({ code: 0, signal: null });
    expect(ended.at - interruptedAt).toBeLessThan(3000);
  });

  it('planhub mcp with a --url that is not a URL is a usage error: exit 2 and one line, no stack trace', async () => {
    const outcome = await run(process.execPath, [CLI, 'mcp', '--url', 'not-a-url', '--agent', 'a'], {
      env: cliEnv,
    }).then(
      ({ stderr }) => ({ code: 0, stderr }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/^planhub mcp: .*not-a-url.*\n$/);
    expect(outcome.stderr).not.toMatch(/\n\s+at /);
  });
});
