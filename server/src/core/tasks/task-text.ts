import type { Task } from './task-model.ts';

const refs = (ids: readonly string[]) => ids.map((id) => `#${id}`).join(', ');

/** TaskList's text, one line per task: `#<id> [<status>] <subject> [owner: x] [blocked by #a, #b]`. */
export const taskListText = (tasks: readonly Task[]): string =>
  tasks.length === 0
    ? 'No tasks found.'
    : tasks
        .map(
          (t) =>
            `#${t.id} [${t.status}] ${t.subject}` +
            (t.owner ? ` [owner: ${t.owner}]` : '') +
            (t.blockedBy.length > 0 ? ` [blocked by ${refs(t.blockedBy)}]` : ''),
        )
        .join('\n');

/** TaskGet's text, in the seed system's layout. */
export const taskGetText = (t: Task): string =>
  [
    `Task #${t.id}: ${t.subject}`,
    `Status: ${t.status}`,
    `Description: ${t.description}`,
    ...(t.blockedBy.length > 0 ? [`Blocked by: ${refs(t.blockedBy)}`] : []),
    ...(t.blocks.length > 0 ? [`Blocks: ${refs(t.blocks)}`] : []),
    ...(t.owner ? [`Owner: ${t.owner}`] : []),
  ]
    .map((line) => `${line}\n`)
    .join('');
