import type { EventEnvelope, PlanHubClient } from '@planhub/client-sdk';
import { connect } from '@planhub/client-sdk';
import { createMemoryStore, createServer, type PlanHubServer } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { startCli } from './cli-process.ts';

/**
 * `planhub events --follow` keeps printing across a restart of its node; it used to say nothing while the node was
 * gone, so whoever watched it could not tell a quiet workspace from a lost connection.
 */
describe('planhub events --follow across a node restart', { timeout: 120_000 }, () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('says when it lost its node and when it is back, and prints what came after', async () => {
    const store = createMemoryStore({ eventRetention: 1000 });
    let node: PlanHubServer = createServer({ port: 0, logLevel: 'silent' }, { store });
    const { url } = await node.listen();
    cleanups.push(() => store.close());
    cleanups.push(() => node.close());
    const agent: PlanHubClient = await connect({ url, agentId: 'main', workspace: 'ws' });
    cleanups.push(() => agent.close());
    await agent.todo({ action: 'create', todos: [] });
    const follow = startCli(['events', '--follow', '--json', '--url', url, '--workspace', 'ws']);
    cleanups.push(follow.stop);
    const types = () =>
      follow
        .output()
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as EventEnvelope).event_type);
    await eventually(() => expect(types()).toContain('todos_updated'), { timeout: 30_000 });

    await node.close();
    await eventually(() => expect(follow.stderr()).toContain('planhub: lost the node; reconnecting…'));
    node = createServer({ port: Number(new URL(url).port), logLevel: 'silent' }, { store });
    await node.listen();
    await eventually(() => expect(follow.stderr()).toContain('planhub: reconnected'), { timeout: 30_000 });
    await agent.createPlan({ title: 'After the restart', steps: ['x'] });
    await eventually(() => expect(types()).toContain('plan_created'), { timeout: 30_000 });
  });
});
