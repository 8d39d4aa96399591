import type { PlanHubClient } from '@planhub/client-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';

/**
 * A null in a field an item must have is a value the model sent, not a field left out: execute() hands it to the
 * node, which reads it as the dialect's upstream does. execute() used to drop it first, so every dialect answered
 * "missing".
 */
describe("execute() keeps a null in a required field for the dialect's own reading", () => {
  let h: Harness;
  let agent: PlanHubClient;
  beforeAll(async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    agent = await h.client('nulls');
  });
  afterAll(async () => h.close());

  it('001: content null is stored as "" (upstream checks only the key\'s presence)', async () => {
    const created = await agent.execute('todo', {
      action: 'create',
      todos: [{ content: null, activeForm: 'Doing it', status: 'pending' }],
    });
    expect(created).toMatchObject({ status: 'created', count: 1 });
    expect(await agent.execute('todo', { action: 'list' })).toMatchObject({
      todos: [{ content: '', activeForm: 'Doing it', status: 'pending' }],
    });
  });

  it('001: status null is an invalid status, in upstream\'s words ("None")', async () => {
    expect(
      await agent.execute('todo', { action: 'update', todos: [{ content: 'c', activeForm: 'a', status: null }] }),
    ).toEqual({ message: 'Todo 0 has invalid status: None' });
  });

  it('a strict-mode call (arguments as JSON text) keeps it too', async () => {
    const created = await agent.execute(
      'todo',
      JSON.stringify({ action: 'create', todos: [{ content: 'x', activeForm: null, status: 'pending' }] }),
    );
    expect(created).toMatchObject({ status: 'created', count: 1 });
  });
});
