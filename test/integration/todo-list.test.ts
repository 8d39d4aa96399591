import type { PlanHubClient } from '@planhub/client-sdk';
import { REMINDER_PREAMBLE, renderTodoReminder } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { refusal } from '../helpers/refusals.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

/** The five items of seed 001's "Implement a new authentication system" example. */
const seedTodos = (statuses: ('pending' | 'in_progress' | 'completed')[] = []) =>
  [
    ['Research auth requirements', 'Researching auth requirements'],
    ['Design auth flow', 'Designing auth flow'],
    ['Implement auth module', 'Implementing auth module'],
    ['Write auth tests', 'Writing auth tests'],
    ['Document auth usage', 'Documenting auth usage'],
  ].map(([content, activeForm], i) => ({
    content: content as string,
    activeForm: activeForm as string,
    status: statuses[i] ?? ('pending' as const),
  }));

describe.each(STORE_KINDS)('seed 001 todo through the SDK (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  const events = async (type: string) =>
    (await h.server.services.store.readEvents('ws', { count: 1000 })).filter((e) => e.event_type === type);

  it('runs the seed example: create five todos, update after research, list', async () => {
    h = await startHarness(store);
    const ai = await h.client('main');
    expect(await ai.todo({ action: 'create', todos: seedTodos() })).toEqual({
      status: 'created',
      count: 5,
      pending: 5,
      in_progress: 0,
      completed: 0,
      todos: seedTodos(),
    });
    const updated = seedTodos(['completed', 'in_progress']);
    expect(await ai.todo({ action: 'update', todos: updated })).toEqual({
      status: 'updated',
      count: 5,
      pending: 3,
      in_progress: 1,
      completed: 1,
      todos: updated,
    });
    expect(await ai.todo({ action: 'list' })).toEqual({
      status: 'listed',
      count: 5,
      pending: 3,
      in_progress: 1,
      completed: 1,
      todos: updated,
    });
    const changes = await events('todos_updated');
    expect(changes.map((e) => [e.source_agent, e.payload.action, e.payload.completed])).toEqual([
      ['main', 'create', 0],
      ['main', 'update', 1],
    ]);
  });

  it("answers the seed's errors, naming the item, and changes nothing", async () => {
    h = await startHarness(store);
    const ai = await h.client('main');
    await ai.todo({ action: 'create', todos: seedTodos() });
    const missing: Record<string, unknown>[] = seedTodos();
    missing[2] = { content: 'Implement auth module', status: 'pending' };
    expect(await refusal(ai.todo({ action: 'update', todos: missing }))).toEqual({
      code: 'INVALID_ARGUMENT',
      message: 'Todo 2 missing required fields (content, status, activeForm)',
    });
    const blocked: Record<string, unknown>[] = seedTodos();
    blocked[0] = { ...blocked[0], status: 'blocked' };
    expect(await refusal(ai.todo({ action: 'update', todos: blocked }))).toEqual({
      code: 'INVALID_ARGUMENT',
      message: 'Todo 0 has invalid status: blocked',
    });
    // A model that sends bare strings instead of items gets the seed's message too, not a schema error.
    const bare = [...seedTodos().slice(0, 3), 'Write auth tests'] as unknown as Record<string, unknown>[];
    expect(await refusal(ai.todo({ action: 'update', todos: bare }))).toEqual({
      code: 'INVALID_ARGUMENT',
      message: 'Todo 3 missing required fields (content, status, activeForm)',
    });
    expect(await refusal(ai.todo({ action: 'remove' }))).toEqual({
      code: 'INVALID_ARGUMENT',
      message: 'Unknown action: remove. Valid actions: create, update, list',
    });
    expect((await ai.todo({ action: 'list' })).todos).toEqual(seedTodos());
    expect(await events('todos_updated')).toHaveLength(1);
  });

  it("answers upstream's test cases for {} and a create without todos, through execute()", async () => {
    h = await startHarness(store);
    const ai = await h.client('main');
    expect(await ai.execute('todo', {})).toEqual({
      message: expect.stringMatching(/^Unknown action: None\. Valid actions: create, update, list\./) as string,
    });
    expect(await ai.execute('todo', { action: 'create' })).toEqual({
      status: 'created',
      count: 0,
      pending: 0,
      in_progress: 0,
      completed: 0,
      todos: [],
    });
    await ai.todo({ action: 'create', todos: seedTodos() });
    // Upstream empties the list the same way; PlanHub says so, since the items were more likely forgotten.
    expect(await ai.execute('todo', { action: 'update' })).toMatchObject({
      status: 'updated',
      count: 0,
      warning: expect.stringMatching(/^todos was left out, so your 5 item\(s\) were replaced/) as string,
    });
    expect((await ai.todo({ action: 'list' })).todos).toEqual([]);
  });

  it('takes content and activeForm of any JSON type, as upstream checks only that they are there, keeping them as text', async () => {
    h = await startHarness(store);
    const ai = await h.client('main');
    const call = ai.call.bind(ai) as (tool: string, args: unknown) => Promise<unknown>;
    const todos = [
      { content: 42, activeForm: null, status: 'pending' },
      { content: 'Ship it', activeForm: false, status: 'in_progress' },
    ];
    // On the wire: execute() reads a null where the schema wants a string as left out (a strict-mode call's null).
    expect(await call('todo', { action: 'create', todos })).toMatchObject({
      status: 'created',
      count: 2,
      todos: [
        { content: '42', activeForm: '', status: 'pending' },
        { content: 'Ship it', activeForm: 'false', status: 'in_progress' },
      ],
    });
    expect((await ai.todo({ action: 'list' })).todos[0]).toEqual({ content: '42', activeForm: '', status: 'pending' });
    expect(
      await ai.execute('todo', { action: 'update', todos: [{ content: 1.5, activeForm: true, status: 'completed' }] }),
    ).toMatchObject({ todos: [{ content: '1.5', activeForm: 'true', status: 'completed' }] });
  });

  it("answers an action that is null or not a string as upstream prints it: 'Unknown action: None'", async () => {
    h = await startHarness(store);
    const ai = await h.client('main');
    const call = ai.call.bind(ai) as (tool: string, args: unknown) => Promise<unknown>;
    for (const [action, shown] of [
      [null, 'None'],
      [7, '7'],
      [true, 'True'],
    ] as const)
      expect((await refusal(call('todo', { action }))).message).toMatch(
        new RegExp(`^Unknown action: ${shown}\\. Valid actions: create, update, list`),
      );
  });

  it("answers upstream's case 2: a fresh agent's list is empty, on the wire and through execute()", async () => {
    h = await startHarness(store);
    const ai = await h.client('fresh');
    const empty = { status: 'listed', count: 0, todos: [] };
    expect(await ai.todo({ action: 'list' })).toMatchObject(empty);
    expect(await ai.todo({ action: 'list' })).toEqual({ ...empty, pending: 0, in_progress: 0, completed: 0 });
    expect(await ai.execute('todo', { action: 'list' })).toMatchObject(empty);
  });

  it("answers upstream's case 7: two items in progress are counted, and a later list keeps an extra key", async () => {
    h = await startHarness(store);
    const ai = await h.client('main');
    const todos = [
      { content: 'Research auth', activeForm: 'Researching auth', status: 'completed' as const },
      { content: 'Design flow', activeForm: 'Designing flow', status: 'in_progress' as const, priority: 'high' },
      { content: 'Write code', activeForm: 'Writing code', status: 'in_progress' as const },
      { content: 'Write tests', activeForm: 'Writing tests', status: 'pending' as const },
    ];
    await ai.todo({ action: 'create', todos: seedTodos() });
    expect(await ai.execute('todo', { action: 'update', todos })).toMatchObject({
      status: 'updated',
      count: 4,
      pending: 1,
      in_progress: 2,
      completed: 1,
    });
    expect(await ai.todo({ action: 'list' })).toMatchObject({ status: 'listed', count: 4, todos });
    expect((await ai.execute('todo', { action: 'list' })) as { todos: unknown[] }).toMatchObject({
      todos: [{}, { priority: 'high' }, {}, {}],
    });
  });

  it('keeps one list per agent that survives reconnecting, and keeps extra keys', async () => {
    h = await startHarness(store);
    const a = await h.client('a');
    const b = await h.client('b');
    await a.todo({ action: 'create', todos: [{ content: 'A', activeForm: 'Doing A', status: 'pending', id: 'x1' }] });
    await b.todo({ action: 'create', todos: seedTodos() });
    a.close();
    const again = await h.client('a');
    expect((await again.todo({ action: 'list' })).todos).toEqual([
      { content: 'A', activeForm: 'Doing A', status: 'pending', id: 'x1' },
    ]);
    expect((await b.todo({ action: 'list' })).count).toBe(5);
  });

  it("serves upstream's reminder: no preamble right after the agent wrote its list, the preamble later", async () => {
    h = await startHarness(store);
    const ai = await h.client('main');
    const todos = seedTodos(['completed', 'in_progress']);
    await ai.todo({ action: 'create', todos });
    const fresh = await ai.todoReminder({});
    expect(fresh).toMatchObject({ agent_id: 'main', used_recently: true, count: 5, todos });
    expect(fresh.reminder).toBe(renderTodoReminder(todos, { usedRecently: true }));
    expect(fresh.reminder).not.toContain(REMINDER_PREAMBLE);
    const due = await ai.todoReminder({ quiet_ms: 0 });
    expect(due.used_recently).toBe(false);
    expect(due.reminder).toBe(renderTodoReminder(todos));
    expect(due.reminder).toContain('<system-reminder source="hooks-todo-reminder">');
    expect(due.reminder).toContain(REMINDER_PREAMBLE);
    expect(due.reminder).toContain('→ Designing auth flow');
    expect(due.summary).toBe('✓1 done, →2 in progress, ☐3 pending, ☐4 pending, ☐5 pending');
    expect(await ai.todoReminder({ agent_id: 'nobody', used_recently: true })).toMatchObject({
      reminder: null,
      count: 0,
      updated_at: null,
    });
  });

  it("lets execute() tell the reminder whether todo was among the host's last three tool calls", async () => {
    h = await startHarness(store);
    const ai = await h.client('main');
    await ai.execute('todo', { action: 'create', todos: seedTodos() });
    expect(await ai.reminder({ quietMs: 0 })).not.toContain(REMINDER_PREAMBLE);
    for (let i = 0; i < 3; i += 1) await ai.execute('getPlanStatus', {});
    expect(await ai.reminder({ quietMs: 0 })).toContain(REMINDER_PREAMBLE);
  });

  it("lets a dashboard read an agent's reminder but not write todos", async () => {
    h = await startHarness(store);
    const ai = await h.client('main');
    await ai.todo({ action: 'create', todos: seedTodos() });
    const dash = await h.client('board', { role: 'dashboard' });
    expect((await dash.todoReminder({ agent_id: 'main', quiet_ms: 0 })).summary).toBe(
      '☐1 pending, ☐2 pending, ☐3 pending, ☐4 pending, ☐5 pending',
    );
    expect((await refusal(dash.todo({ action: 'list' }))).code).toBe('PERMISSION_DENIED');
  });

  it('refuses a list over the configured limit with RESOURCE_EXHAUSTED', async () => {
    h = await startHarness(store, { limits: { todosPerList: 3 } });
    const ai: PlanHubClient = await h.client('main');
    expect(await refusal(ai.todo({ action: 'create', todos: seedTodos() }))).toEqual({
      code: 'RESOURCE_EXHAUSTED',
      message: 'A todo list holds at most 3 items; you sent 5.',
    });
  });
});
