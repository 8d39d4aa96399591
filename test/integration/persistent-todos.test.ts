import type { EventEnvelope } from '@planhub/client-sdk';
import { renderTodoBox } from '@planhub/shared';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { expectRefusal } from '../helpers/refusals.ts';
import { STORE_KINDS, startHarness, uniquePrefix, type Harness } from '../helpers/servers.ts';
import { deletePrefix } from '../helpers/stores.ts';

type Status = 'pending' | 'in_progress' | 'completed';
const item = (
  id: string,
  content: string,
  status: Status = 'pending',
  priority: 'high' | 'medium' | 'low' = 'medium',
) => ({
  id,
  content,
  status,
  priority,
});
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

describe.each(STORE_KINDS)('dialect 002: persistent todos through the SDK (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('reads an empty list with guidance, then returns every item with id, content, status, priority, timestamps', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    expect(await agent.todo_read({})).toEqual({
      todos: [],
      message: 'No todos. Use todo_write to create your task list.',
    });
    const written = await agent.todo_write({
      todos: [
        item('1', 'Research auth requirements', 'in_progress', 'high'),
        item('2', 'Design auth flow'),
        // Timestamps an item carries are kept as sent, as upstream keeps them (it never parses them either).
        { ...item('3', 'Write auth tests', 'pending', 'low'), created_at: 'yesterday', updated_at: 'yesterday' },
      ],
    });
    expect(written.todos.map((t) => [t.id, t.status, t.priority])).toEqual([
      ['1', 'in_progress', 'high'],
      ['2', 'pending', 'medium'],
      ['3', 'pending', 'low'],
    ]);
    // Items sent without timestamps get PlanHub's (ISO-8601 UTC).
    for (const t of written.todos.slice(0, 2)) {
      expect(t.created_at).toMatch(ISO);
      expect(t.updated_at).toMatch(ISO);
    }
    expect(written.todos[2]).toMatchObject({ created_at: 'yesterday', updated_at: 'yesterday' });
    expect((await agent.todo_read({})).todos).toEqual(written.todos);
  });

  it("round-trips the timestamps the agent sends, as upstream's todo_write stores them, and stamps the missing ones", async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const t1 = {
      ...item('t1', 'Write the middleware', 'pending', 'high'),
      created_at: '2026-03-30T09:00:00.000Z',
      updated_at: '2026-03-30T09:00:00.000Z',
    };
    const t2 = {
      ...item('t2', 'Apply it to the routes', 'in_progress', 'low'),
      created_at: '2026-03-30T09:05:00+02:00',
      updated_at: '2026-03-30T10:00:00Z',
    };
    expect((await agent.todo_write({ todos: [t1, t2] })).todos).toEqual([t1, t2]);
    expect((await agent.todo_read({})).todos).toEqual([t1, t2]);
    // A later write that sends a new updated_at keeps it; one that sends none (or an empty one) gets PlanHub's.
    const t1Done = { ...t1, status: 'completed' as const, updated_at: '2026-03-30T11:00:00.000Z' };
    const { id, content, status, priority } = t2;
    const next = await agent.todo_write({
      todos: [t1Done, { id, content: `${content}, all of them`, status, priority, updated_at: '' }],
    });
    expect(next.todos[0]).toEqual(t1Done);
    expect(next.todos[1]).toMatchObject({
      id: 't2',
      created_at: t2.created_at,
      updated_at: expect.stringMatching(ISO) as string,
    });
    expect(next.todos[1]?.updated_at).not.toBe(t2.updated_at);
    expect((await agent.todo_read({})).todos).toEqual(next.todos);
  });

  it('keeps omitted items as completed, placed first; keeps created_at and moves updated_at only on change', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const first = await agent.todo_write({
      todos: [item('a', 'Step A', 'in_progress'), item('b', 'Step B'), item('c', 'Step C')],
    });
    const next = await agent.todo_write({ todos: [item('b', 'Step B', 'in_progress'), item('c', 'Step C')] });
    expect(next.todos.map((t) => [t.id, t.status])).toEqual([
      ['a', 'completed'],
      ['b', 'in_progress'],
      ['c', 'pending'],
    ]);
    expect(next.message).toMatch(/Kept 1 item\(s\) you left out as completed: a/);
    const before = new Map(first.todos.map((t) => [t.id, t]));
    for (const t of next.todos) expect(t.created_at).toBe(before.get(t.id)?.created_at);
    // c did not change: its updated_at stays.
    expect(next.todos[2]?.updated_at).toBe(before.get('c')?.updated_at);
  });

  it('starts a clean slate when every new item is completed, and clears on an empty list', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    await agent.todo_write({ todos: [item('a', 'A'), item('b', 'B')] });
    const slate = await agent.todo_write({ todos: [item('x', 'X', 'completed')] });
    expect(slate.todos.map((t) => t.id)).toEqual(['x']);
    const cleared = await agent.todo_write({ todos: [] });
    expect(cleared).toMatchObject({ todos: [], message: 'Todo list cleared.' });
    expect((await agent.todo_read({})).todos).toEqual([]);
  });

  it('refuses invalid items with an error naming the item, and writes nothing', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    await agent.todo_write({ todos: [item('keep', 'Keep me')] });
    const bad = (todos: unknown[]) => agent.todo_write({ todos } as never);
    await expectRefusal(
      bad([item('1', 'ok'), { ...item('2', 'x'), priority: 'urgent' }]),
      'INVALID_ARGUMENT',
      /todos\.1\.priority: priority must be high, medium or low/,
    );
    await expectRefusal(
      bad([{ ...item('1', 'x'), status: 'blocked' }]),
      'INVALID_ARGUMENT',
      /todos\.0\.status: status must be pending, in_progress or completed/,
    );
    await expectRefusal(
      bad([{ id: '1', status: 'pending', priority: 'low' }]),
      'INVALID_ARGUMENT',
      /todos\.0\.content/,
    );
    expect((await agent.todo_read({})).todos.map((t) => t.id)).toEqual(['keep']);
  });

  it('scopes lists per agent, keeps them across reconnects, and announces each change once', async () => {
    h = await startHarness(store);
    const board = await h.client('board', { role: 'dashboard' });
    const events: EventEnvelope[] = [];
    board.on('event', (e) => events.push(e));
    await board.subscribeToTasks({ agent_id: '*', event_types: ['todos_updated'] });
    const agent = await h.client('main');
    const other = await h.client('other');
    const todos = [item('1', 'Mine', 'in_progress'), item('2', 'Also mine')];
    await agent.todo_write({ todos });
    await agent.todo_write({ todos }); // a repeat changes nothing
    expect((await other.todo_read({})).todos).toEqual([]);
    expect((await board.todo_read({ agent_id: 'main' })).todos).toHaveLength(2);
    agent.close();
    const again = await h.client('main');
    const read = await again.todo_read({});
    expect(read.todos.map((t) => t.content)).toEqual(['Mine', 'Also mine']);
    await expect.poll(() => events.length).toBe(1);
    expect(events[0]).toMatchObject({
      source_agent: 'main',
      payload: { agent_id: 'main', dialect: '002', count: 2, in_progress: 1, pending: 1, completed: 0 },
    });
    expect(renderTodoBox(read.todos, { color: false })).toContain('▶ Mine');
  });

  it("keeps items that share an id, as upstream does, and warns; through execute() too, and upstream's missing-list error", async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const out = await agent.todo_write({ todos: [item('1', 'x'), item('1', 'y', 'in_progress'), item('2', 'z')] });
    expect(out.todos.map((t) => [t.id, t.content])).toEqual([
      ['1', 'x'],
      ['1', 'y'],
      ['2', 'z'],
    ]);
    expect(out.warning).toMatch(/share the id "1"; all were kept/);
    expect((await agent.todo_read({})).todos).toHaveLength(3);
    const native = await agent.execute('todo_write', { todos: [item('3', 'a'), item('3', 'b')] });
    expect(native).toMatchObject({ warning: expect.stringMatching(/share the id "3"/) as string });
    expect(await agent.execute('todo_write', {})).toMatch(/^Error: todo_write requires a 'todos' argument \(array\)\./);
  });

  it('warns when more than one item is in progress', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const out = await agent.todo_write({ todos: [item('1', 'A', 'in_progress'), item('2', 'B', 'in_progress')] });
    expect(out.warning).toMatch(/keep exactly one in progress/);
  });
});

/**
 * Upstream reads a corrupt stored list as empty ({todos: []}); PlanHub answers INTERNAL naming the key, as it does for
 * every stored document: reading it as empty would let the next todo_write silently replace the lost items.
 */
describe.each(STORE_KINDS)('dialect 002: a corrupt stored todo list (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('answers INTERNAL naming todo002:<agent> where upstream reads an empty list, on the wire and through execute()', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    await agent.todo_write({ todos: [item('1', 'Keep me')] });
    const written = await h.server.services.store.commit('ws', {
      reads: [],
      writes: [{ key: 'todo002:main', value: { something_else: true } }],
      events: [],
    });
    expect(written.ok).toBe(true);
    await expectRefusal(agent.todo_read({}), 'INTERNAL', 'The stored document todo002:main is corrupt');
    await expectRefusal(agent.todo_write({ todos: [item('2', 'New')] }), 'INTERNAL', 'todo002:main');
    expect(await agent.execute('todo_read', {})).toMatch(/^Error: The stored document todo002:main is corrupt/);
    const other = await h.client('other');
    expect(await other.todo_read({})).toMatchObject({ todos: [] });
  });
});

describe('dialect 002: a todo list stored as text that is not JSON', () => {
  it('answers INTERNAL naming the key where upstream reads an empty list', async () => {
    const redisPrefix = uniquePrefix();
    const h = await startHarness('redis', { redisPrefix });
    try {
      const agent = await h.client('main');
      await agent.todo_write({ todos: [item('1', 'Keep me')] });
      const redis = new Redis(inject('redisUrl'));
      try {
        await redis.hset(`${redisPrefix}:{ws}:doc:todo002:main`, 'd', 'not-valid-json{{{');
      } finally {
        redis.disconnect();
      }
      await expectRefusal(agent.todo_read({}), 'INTERNAL', 'todo002:main');
    } finally {
      await h.close();
      await deletePrefix(inject('redisUrl'), redisPrefix);
    }
  });
});

describe('dialect 002 state on Redis', () => {
  it('keeps todos and the plan mode across a restart of the node', async () => {
    const redisPrefix = uniquePrefix();
    const first = await startHarness('redis', { redisPrefix });
    try {
      const agent = await first.client('main');
      await agent.todo_write({ todos: [item('1', 'Survive a restart', 'in_progress', 'high')] });
      await agent.plan_enter({ goal: 'Keep planning after a restart' });
    } finally {
      await first.close();
    }
    const second = await startHarness('redis', { redisPrefix });
    try {
      const agent = await second.client('main');
      expect((await agent.todo_read({})).todos).toMatchObject([
        { id: '1', content: 'Survive a restart', status: 'in_progress', priority: 'high' },
      ]);
      expect(await agent.plan_status({})).toMatchObject({ mode: 'plan', goal: 'Keep planning after a restart' });
    } finally {
      await second.close();
      await deletePrefix(inject('redisUrl'), redisPrefix);
    }
  });
});
