import { describe, expect, it } from 'vitest';
import { findCycle } from '../src/core/dependencies/graph.ts';
import { createTask } from '../src/core/tasks/task-create.ts';
import { taskEdges } from '../src/core/tasks/task-edges.ts';
import type { TaskDoc } from '../src/core/tasks/task-model.ts';
import { emptyTaskDoc, sortedTasks } from '../src/core/tasks/task-model.ts';
import { taskGetText, taskListText } from '../src/core/tasks/task-text.ts';
import type { TaskUpdateInput } from '../src/core/tasks/task-update.ts';
import { updateTask } from '../src/core/tasks/task-update.ts';
import { errorOf } from './support/error-of.ts';

const ctx = { workspace: 'ws', agent_id: 'main', now: '2026-01-01T00:00:00.000Z' };

const withTasks = (...subjects: string[]): TaskDoc =>
  subjects.reduce(
    (doc, subject) => createTask(doc, { subject, description: `${subject}.` }, ctx, 1000).doc,
    emptyTaskDoc(),
  );

const update = (doc: TaskDoc, input: TaskUpdateInput) => {
  const out = updateTask(doc, input, ctx);
  return { ...out, doc: out.doc ?? doc };
};

/** Every edge is stored on both ends and the open graph has no cycle. */
const expectConsistent = (doc: TaskDoc) => {
  for (const t of Object.values(doc.tasks)) {
    for (const b of t.blockedBy) expect(doc.tasks[b]?.blocks).toContain(t.id);
    for (const b of t.blocks) expect(doc.tasks[b]?.blockedBy).toContain(t.id);
    expect(new Set(t.blockedBy).size).toBe(t.blockedBy.length);
    expect(new Set(t.blocks).size).toBe(t.blocks.length);
  }
  const edges = taskEdges(doc);
  for (const [from, tos] of Object.entries(edges))
    for (const to of tos)
      expect(findCycle({ ...edges, [from]: tos.filter((x) => x !== to) }, from, to)).toBeUndefined();
};

describe('seed 003 tasks: creation, ids and listing', () => {
  it('creates tasks with decimal ids from the high-water mark and answers with the seed string', () => {
    const first = createTask(
      emptyTaskDoc(),
      { subject: 'Analyze requirements', description: 'Read the spec' },
      ctx,
      10,
    );
    expect(first.result).toBe('Task #1 created successfully: Analyze requirements');
    expect(first.task).toMatchObject({ id: '1', status: 'pending', blocks: [], blockedBy: [], created_by: 'main' });
    expect(first.doc.high_water).toBe(1);
    expect(first.events.map((e) => e.event_type)).toEqual(['task_created']);
    const second = createTask(
      first.doc,
      { subject: 'Write code', description: '', activeForm: 'Writing code' },
      ctx,
      10,
    );
    expect(second.result).toBe('Task #2 created successfully: Write code');
    expect(second.task.activeForm).toBe('Writing code');
  });

  it('lists tasks in numeric order (10 after 9) and says so when there are none', () => {
    const doc = withTasks(...Array.from({ length: 12 }, (_, i) => `Task ${i + 1}`));
    expect(sortedTasks(doc).map((t) => t.id)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12']);
    expect(taskListText([])).toBe('No tasks found.');
  });

  it('refuses to create beyond the workspace limit with RESOURCE_EXHAUSTED', () => {
    const doc = withTasks('a', 'b');
    expect(errorOf(() => createTask(doc, { subject: 'c', description: '' }, ctx, 2)).code).toBe('RESOURCE_EXHAUSTED');
  });

  it('stores metadata without null keys', () => {
    const out = createTask(emptyTaskDoc(), { subject: 's', description: '', metadata: { a: 1, b: null } }, ctx, 10);
    expect(out.task.metadata).toEqual({ a: 1 });
  });
});

describe('seed 003 tasks: the typical flow of the seed', () => {
  it('sets dependencies, works through them, unblocks each dependent once, and cleans up keeping the counter', () => {
    let doc = withTasks('Analyze requirements', 'Write code', 'Write tests');
    let out = update(doc, { taskId: '2', addBlockedBy: ['1'] });
    expect(out.result).toBe('Updated task #2 blockedBy');
    doc = out.doc;
    doc = update(doc, { taskId: '3', addBlockedBy: ['2'] }).doc;
    expect(doc.tasks['1']?.blocks).toEqual(['2']);
    expect(doc.tasks['2']).toMatchObject({ blocks: ['3'], blockedBy: ['1'] });
    expect(taskListText(sortedTasks(doc))).toBe(
      '#1 [pending] Analyze requirements\n#2 [pending] Write code [blocked by #1]\n#3 [pending] Write tests [blocked by #2]',
    );
    expectConsistent(doc);

    out = update(doc, { taskId: '1', status: 'in_progress', owner: 'main' });
    expect(out.result).toBe('Updated task #1 status, owner');
    expect(out.unblocked).toEqual([]);
    doc = out.doc;
    expect(taskListText(sortedTasks(doc)).split('\n')[0]).toBe('#1 [in_progress] Analyze requirements [owner: main]');

    out = update(doc, { taskId: '1', status: 'completed' });
    expect(out.result).toBe('Updated task #1 status');
    expect(out.unblocked).toEqual(['2']);
    expect(out.cleaned_up).toBe(false);
    expect(out.events.map((e) => e.event_type)).toEqual(['task_updated', 'task_updated', 'task_unblocked']);
    expect(out.events[2]?.payload).toMatchObject({ task_id: '2', unblocked_by: '1' });
    doc = out.doc;
    expect(doc.tasks['2']?.blockedBy).toEqual([]);
    expect(doc.tasks['3']?.blockedBy).toEqual(['2']);
    expectConsistent(doc);

    doc = update(doc, { taskId: '2', status: 'completed' }).doc;
    out = update(doc, { taskId: '3', status: 'completed' });
    expect(out.cleaned_up).toBe(true);
    expect(out.task).toBeUndefined();
    expect(out.events.filter((e) => e.event_type === 'task_deleted').map((e) => e.payload.task_id)).toEqual([
      '1',
      '2',
      '3',
    ]);
    expect(out.doc).toEqual({ high_water: 3, tasks: {} });
    expect(createTask(out.doc, { subject: 'Next', description: '' }, ctx, 10).task.id).toBe('4');
  });
});

describe('seed 003 tasks: dependencies', () => {
  it('refuses "#1 blocks #2, #2 blocks #1" with the seed wording and changes nothing', () => {
    const doc = update(withTasks('a', 'b'), { taskId: '1', addBlocks: ['2'] }).doc;
    expect(errorOf(() => updateTask(doc, { taskId: '2', addBlocks: ['1'] }, ctx))).toEqual({
      code: 'FAILED_PRECONDITION',
      message: 'TaskUpdate adding Task #1 to blocks of Task #2 would create a cyclic dependency',
    });
    expect(errorOf(() => updateTask(doc, { taskId: '1', addBlockedBy: ['2'] }, ctx)).message).toBe(
      'TaskUpdate adding Task #2 to blockedBy of Task #1 would create a cyclic dependency',
    );
  });

  it('refuses a self-edge and a longer cycle', () => {
    let doc = withTasks('a', 'b', 'c');
    expect(errorOf(() => updateTask(doc, { taskId: '1', addBlockedBy: ['1'] }, ctx)).message).toBe(
      'TaskUpdate adding Task #1 to blockedBy of Task #1 would create a cyclic dependency',
    );
    doc = update(doc, { taskId: '2', addBlockedBy: ['1'] }).doc;
    doc = update(doc, { taskId: '3', addBlockedBy: ['2'] }).doc;
    expect(errorOf(() => updateTask(doc, { taskId: '1', addBlockedBy: ['3'] }, ctx)).code).toBe('FAILED_PRECONDITION');
  });

  it('refuses a call whose edges only close a cycle together, writing none of them', () => {
    const doc = withTasks('a', 'b');
    expect(errorOf(() => updateTask(doc, { taskId: '1', addBlocks: ['2'], addBlockedBy: ['2'] }, ctx)).message).toBe(
      'TaskUpdate adding Task #2 to blockedBy of Task #1 would create a cyclic dependency',
    );
  });

  it('checks every id before anything changes: an unknown id refuses the whole call', () => {
    const doc = withTasks('a', 'b', 'c');
    const err = errorOf(() => updateTask(doc, { taskId: '1', subject: 'x', addBlocks: ['2', '9'] }, ctx));
    expect(err.code).toBe('NOT_FOUND');
    expect(err.message).toBe(
      'TaskUpdate update Task #1 blocks failed, err: failed to read task #9 for updating blockedBy: Task #9 not found. Existing tasks: #1, #2, #3.',
    );
    expect(doc.tasks['2']?.blockedBy).toEqual([]);
    expect(errorOf(() => updateTask(doc, { taskId: '9', subject: 'x' }, ctx)).message).toBe(
      'TaskUpdate read Task #9 failed, err: Task #9 not found. Existing tasks: #1, #2, #3.',
    );
  });

  it('refuses ids that are not decimal strings, in the seed wording', () => {
    const doc = withTasks('a');
    expect(errorOf(() => updateTask(doc, { taskId: 'abc' }, ctx))).toEqual({
      code: 'INVALID_ARGUMENT',
      message: 'TaskUpdate validate task ID failed, err: invalid format: abc',
    });
    expect(errorOf(() => updateTask(doc, { taskId: '1', addBlocks: ['x1'] }, ctx)).message).toBe(
      'TaskUpdate validate blocked task ID failed, err: invalid format: x1',
    );
    expect(errorOf(() => updateTask(doc, { taskId: '1', addBlockedBy: ['-1'] }, ctx)).message).toBe(
      'TaskUpdate validate blocking task ID failed, err: invalid format: -1',
    );
  });

  it('reads "01" as task 1', () => {
    expect(update(withTasks('a'), { taskId: '01', subject: 'b' }).doc.tasks['1']?.subject).toBe('b');
  });

  it('de-duplicates edges within a call and across calls', () => {
    let doc = withTasks('a', 'b');
    doc = update(doc, { taskId: '2', addBlockedBy: ['1', '1'] }).doc;
    const again = update(doc, { taskId: '1', addBlocks: ['2'] });
    expect(again.events).toEqual([]);
    expect(again.doc.tasks['2']?.blockedBy).toEqual(['1']);
    expect(again.doc.tasks['1']?.blocks).toEqual(['2']);
  });

  it('resolves at once a dependency on a task that is already completed', () => {
    let doc = withTasks('a', 'b', 'c');
    doc = update(doc, { taskId: '1', status: 'completed' }).doc;
    const out = update(doc, { taskId: '2', addBlockedBy: ['1'] });
    expect(out.doc.tasks['2']?.blockedBy).toEqual([]);
    expect(out.doc.tasks['1']?.blocks).toEqual([]);
  });

  it('does not report a task as unblocked when its blocker completes in the call that adds the edge', () => {
    const out = update(withTasks('a', 'b'), { taskId: '1', status: 'completed', addBlocks: ['2'] });
    expect(out.unblocked).toEqual([]);
    expect(out.events.map((e) => e.event_type)).not.toContain('task_unblocked');
  });

  it('unblocks a dependent only when its last open blocker completes', () => {
    let doc = update(withTasks('a', 'b', 'c'), { taskId: '3', addBlockedBy: ['1', '2'] }).doc;
    let out = update(doc, { taskId: '1', status: 'completed' });
    expect(out.unblocked).toEqual([]);
    doc = out.doc;
    expect(doc.tasks['3']?.blockedBy).toEqual(['2']);
    out = update(doc, { taskId: '2', status: 'completed' });
    expect(out.unblocked).toEqual(['3']);
    expect(out.events.filter((e) => e.event_type === 'task_unblocked')).toHaveLength(1);
  });
});

describe('seed 003 tasks: fields, status and deletion', () => {
  it('merges metadata per key and deletes keys set to null', () => {
    let doc = update(withTasks('a'), { taskId: '1', metadata: { a: 1, b: 2 } }).doc;
    const out = update(doc, { taskId: '1', metadata: { b: null, c: 3 } });
    expect(out.result).toBe('Updated task #1 metadata');
    doc = out.doc;
    expect(doc.tasks['1']?.metadata).toEqual({ a: 1, c: 3 });
    doc = update(doc, { taskId: '1', metadata: { a: null, c: null } }).doc;
    expect(doc.tasks['1']?.metadata).toBeUndefined();
  });

  it('treats empty strings as unchanged', () => {
    const doc = update(withTasks('a'), { taskId: '1', owner: 'bob', activeForm: 'Doing a' }).doc;
    const out = updateTask(
      doc,
      { taskId: '1', subject: '', description: '', activeForm: '', status: '', owner: '' },
      ctx,
    );
    expect(out.result).toBe('Updated task #1 (no changes)');
    expect(out.doc).toBeUndefined();
    expect(out.events).toEqual([]);
    expect(out.task).toMatchObject({ subject: 'a', owner: 'bob', activeForm: 'Doing a', status: 'pending' });
  });

  it('validates the status', () => {
    expect(errorOf(() => updateTask(withTasks('a'), { taskId: '1', status: 'done' }, ctx))).toEqual({
      code: 'INVALID_ARGUMENT',
      message:
        'TaskUpdate invalid task status: done. Valid statuses: pending, in_progress, completed, deleted (or omit it).',
    });
  });

  it('deletes a task, strips it from every edge and frees the tasks it was the last blocker of', () => {
    let doc = withTasks('a', 'b', 'c', 'd');
    doc = update(doc, { taskId: '2', addBlockedBy: ['1'], addBlocks: ['3', '4'] }).doc;
    doc = update(doc, { taskId: '4', addBlockedBy: ['1'] }).doc;
    const out = update(doc, { taskId: '2', status: 'deleted' });
    expect(out.result).toBe('Updated task #2 deleted');
    expect(out.unblocked).toEqual(['3']);
    expect(out.doc.tasks['2']).toBeUndefined();
    expect(out.doc.tasks['1']?.blocks).toEqual(['4']);
    expect(out.doc.tasks['4']?.blockedBy).toEqual(['1']);
    expect(out.events[0]).toMatchObject({ event_type: 'task_deleted', payload: { task_id: '2', reason: 'deleted' } });
    expectConsistent(out.doc);
    expect(errorOf(() => updateTask(out.doc, { taskId: '2', status: 'deleted' }, ctx)).code).toBe('NOT_FOUND');
  });

  it('keeps the completed tasks when deleting the last open one, as only a completion cleans', () => {
    const doc = update(withTasks('a', 'b'), { taskId: '1', status: 'completed' }).doc;
    const out = update(doc, { taskId: '2', status: 'deleted' });
    expect(out.cleaned_up).toBe(false);
    expect(out.events.map((e) => e.event_type)).toEqual(['task_deleted']);
    expect(sortedTasks(out.doc).map((t) => [t.id, t.status])).toEqual([['1', 'completed']]);
  });

  it('renders TaskGet in the seed layout', () => {
    let doc = withTasks('a', 'b', 'c');
    doc = update(doc, { taskId: '2', addBlockedBy: ['1'], addBlocks: ['3'], owner: 'alice' }).doc;
    expect(taskGetText(doc.tasks['2'] as never)).toBe(
      'Task #2: b\nStatus: pending\nDescription: b.\nBlocked by: #1\nBlocks: #3\nOwner: alice\n',
    );
  });
});
