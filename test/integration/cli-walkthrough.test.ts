import type { PlanHubClient } from '@planhub/client-sdk';
import type { PlanHubServer } from '@planhub/server';
import { createServer } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { refusingPort } from '../helpers/free-port.ts';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { mcpClient } from '../mcp/mcp-clients.ts';
import { runCli } from './cli-process.ts';

const planhub = (...args: string[]) => runCli(args);

/** What a new user runs into on a first try, command by command. */
// Each test launches the CLI from source through tsx (1.4 s of CPU per launch on this project's 2-core machines):
// a loaded run needs more than the default deadline. Nothing in them is timed.
describe('planhub on a first walk through', { timeout: 120_000 }, () => {
  let h: Harness | undefined;
  let secretNode: PlanHubServer | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
    await secretNode?.close();
    secretNode = undefined;
  });

  const awaitingApproval = async (agent: PlanHubClient) => {
    const { plan_id } = await agent.createPlan({ title: 'Needs a yes', steps: ['Act'] });
    // Waits for a decision that may never come: closing the client at the end refuses it, as expected.
    agent.startPlan({}).catch(() => undefined);
    await eventually(async () => expect((await agent.getPlanStatus({})).status).toBe('awaiting_approval'));
    return plan_id;
  };

  it('names the plan id to approve under a plan waiting for approval, as watch does', async () => {
    h = await startHarness('memory');
    const planId = await awaitingApproval(await h.client('main'));
    const outcome = await planhub('plan', '--agent', 'main', '--url', h.url, '-w', 'ws');
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain('Status: awaiting_approval');
    expect(outcome.stdout.trimEnd().split('\n').at(-1)).toBe(
      `Waiting for approval: planhub approve ${planId}  (or: planhub reject ${planId})`,
    );
  });

  it('prints no approval line under a plan that waits for nobody', async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    await agent.createPlan({ title: 'Runs', steps: ['Act'] });
    await agent.startPlan({});
    const outcome = await planhub('plan', '--agent', 'main', '--url', h.url, '-w', 'ws');
    expect(outcome.stdout).not.toContain('Waiting for approval');
  });

  it('puts the plan id on every event line of a plan, so an approval can be decided from planhub events', async () => {
    h = await startHarness('memory');
    const agent = await h.client('main');
    const planId = await awaitingApproval(agent);
    const outcome = await planhub(
      'events',
      '--url',
      h.url,
      '-w',
      'ws',
      '--type',
      'plan_created,plan_approval_requested',
    );
    const lines = outcome.stdout.trimEnd().split('\n');
    expect(lines.map((l) => l.split('  ')[1]?.trim())).toEqual(['plan_created', 'plan_approval_requested']);
    for (const line of lines) expect(line.split('  ')).toContain(`plan_id=${planId}`);
    const approved = await planhub('approve', planId, '--as', 'alice', '--url', h.url, '-w', 'ws');
    expect(approved.code).toBe(0);
  });

  it('says on stderr that a workspace has no events, keeping stdout (and --json) for events alone', async () => {
    h = await startHarness('memory');
    expect(await planhub('events', '--url', h.url, '-w', 'empty')).toEqual({
      code: 0,
      stdout: '',
      stderr: 'No events in workspace empty.\n',
    });
    expect(await planhub('events', '--url', h.url, '-w', 'empty', '--agent', 'main')).toMatchObject({
      stderr: 'No matching events in workspace empty.\n',
    });
    expect(await planhub('events', '--url', h.url, '-w', 'empty', '--json')).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
  });

  it('refuses a --url without an http scheme at once with exit 2, for every command, as planhub mcp does', async () => {
    const problem = (url: string) =>
      `planhub: --url (or PLANHUB_URL) "${url}" is not a node's address; give one like http://127.0.0.1:4000.\n`;
    // Each command once, and each malformed address once: every command reads --url through the same check.
    const commands = [['plan', '--agent', 'main'], ['watch'], ['events'], ['approve', 'plan_x'], ['reject', 'p']];
    const urls = ['127.0.0.1:4617', 'ftp://x', 'HTTP://127.0.0.1:4617', 'http:127.0.0.1:4617'];
    const cases = [
      ...commands.map((args) => ({ args, url: '127.0.0.1:4617' })),
      ...urls.slice(1).map((url) => ({ args: ['plan', '--agent', 'main'], url })),
    ];
    // In parallel: each is a process start; a deadline far beyond the test's means only a refusal before dialing
    // answers in time.
    const outcomes = await Promise.all(
      cases.map(({ args, url }) => planhub(...args, '--url', url, '--connect-timeout', '600000')),
    );
    for (const [i, { args, url }] of cases.entries())
      expect(outcomes[i], `${args[0]} --url ${url}`).toEqual({ code: 2, stdout: '', stderr: problem(url) });
  });

  it('tells a command-line user of a node in secret mode which option carries the token', async () => {
    secretNode = createServer({ port: 0, logLevel: 'silent', secret: 'walkthrough-secret-0123456789' });
    const { url } = await secretNode.listen();
    expect(await planhub('plan', '--agent', 'main', '--url', url, '-w', 'ws')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'planhub: This node is in secret mode: pass --token <jwt> (or PLANHUB_TOKEN); ' +
        'mint one with planhub token --agent <you> --role user.\n',
    });
  });

  it('warns on stderr when a minted token outlives the 30 days a node accepts by default', async () => {
    const mint = (ttl: string) =>
      planhub('token', '--agent', 'alice', '--role', 'user', '--secret', 'walkthrough-secret-0123456789', '--ttl', ttl);
    const long = await mint('40d');
    expect(long.code).toBe(0);
    expect(long.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    expect(long.stderr).toBe(
      'planhub: warning: --ttl 40d is longer than the 30 days a node accepts unless its PLANHUB_TOKEN_MAX_LIFETIME ' +
        'allows more; a node with the default refuses this token for connections (/metrics takes it: scrapers ' +
        'hold long-lived tokens).\n',
    );
    expect((await mint('30d')).stderr).toBe('');
  });

  it('names the node and the cause when planhub mcp cannot reach it, not just "fetch failed"', async () => {
    const dead = `http://127.0.0.1:${await refusingPort()}`;
    await expect(mcpClient('stdio', dead, { workspace: 'ws', agentId: 'lost' })).rejects.toThrow(
      `cannot reach the PlanHub node at ${dead}/mcp (ECONNREFUSED)`,
    );
  });
});
