import type { PlanHubClient } from '@planhub/client-sdk';
import { fromStrictArgs } from '@planhub/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';

/**
 * execute() decodes a JSON string sent where a field takes no string (strict mode sends free-form values so). A
 * string that decodes to a type the field does not take either is refused all the same; it used to reach the node
 * decoded, so the refusal named the decoded type: `addBlocks: "2"` was answered "(got number)".
 */
describe('execute() names the type the model sent when a string goes where it does not fit', () => {
  let h: Harness;
  let agent: PlanHubClient;
  beforeAll(async () => {
    h = await startHarness('memory');
    agent = await h.client('tasks');
    for (const subject of ['one', 'two']) await agent.execute('TaskCreate', { subject, description: '' });
  });
  afterAll(async () => h.close());

  it('003: addBlocks "2" is refused as a string, not as the number it decodes to', async () => {
    const answer = await agent.execute('TaskUpdate', { taskId: '1', addBlocks: '2' });
    expect(answer).toEqual(expect.stringContaining('addBlocks must be an array (got string)'));
    expect(await agent.execute('TaskGet', { taskId: '2' })).toMatchObject({ task: { blockedBy: [] } });
  });

  it('003: what was accepted still is: a list sent as JSON text, and "null" for a field left out', async () => {
    expect(await agent.execute('TaskUpdate', { taskId: '1', addBlocks: '["2"]' })).toMatchObject({
      task: { blocks: ['2'] },
    });
    expect(await agent.execute('TaskUpdate', { taskId: '1', addBlockedBy: 'null' })).toMatchObject({
      task: { blocks: ['2'] },
    });
  });

  it('decodes only into a type the field takes (unit)', () => {
    const schema = {
      type: 'object',
      properties: {
        list: { type: 'array', items: { type: 'string' } },
        count: { type: 'integer' },
        either: { anyOf: [{ type: 'array' }, { type: 'null' }] },
        free: {},
      },
    };
    expect(fromStrictArgs(schema, { list: '2', count: '[1]', either: '{}', free: '2' })).toEqual({
      list: '2',
      count: '[1]',
      either: '{}',
      free: 2,
    });
    expect(fromStrictArgs(schema, { list: '["a"]', count: '3', either: 'null', free: '{"a":1}' })).toEqual({
      list: ['a'],
      count: 3,
      either: null,
      free: { a: 1 },
    });
  });
});
