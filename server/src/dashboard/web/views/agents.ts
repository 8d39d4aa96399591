import type { AgentSummary, TaskSummary, TodoSummary } from '@planhub/shared';
import { domId, h, timeOf } from '../dom.ts';
import type { DashboardState } from '../state.ts';
import { planCard } from './plan-card.ts';
import { statusBadge } from './status-badges.ts';

const TODO_MARK: Record<string, string> = { completed: '✓', in_progress: '→', pending: '☐' };

const todoList = (todos: TodoSummary[]): HTMLElement =>
  h(
    'ul',
    { class: 'todos', 'aria-label': 'Todos' },
    ...todos.map((t) =>
      h(
        'li',
        { class: `todo status-${t.status}` },
        h('span', { class: 'mark', 'aria-hidden': 'true' }, TODO_MARK[t.status] ?? '•'),
        t.status === 'in_progress' && t.active_form ? t.active_form : t.content,
        t.priority ? h('span', { class: 'muted small' }, ` ${t.priority}`) : null,
        h('span', { class: 'sr-only' }, ` (${t.status})`),
      ),
    ),
  );

export const taskLine = (t: TaskSummary): HTMLElement =>
  h(
    'li',
    { class: `task status-${t.status}`, 'data-task-id': t.id },
    h('span', { class: 'sid' }, `#${t.id}`),
    statusBadge(t.status),
    h('span', { class: 'desc' }, t.subject),
    t.blocked_by.length
      ? h('span', { class: 'waits' }, `blocked by ${t.blocked_by.map((b) => `#${b}`).join(', ')}`)
      : null,
  );

const presenceBadge = (agent: AgentSummary): HTMLElement | null => {
  if (agent.online === undefined) return null;
  const seen = agent.last_seen_at ? timeOf(agent.last_seen_at) : undefined;
  return h(
    'span',
    { class: `presence ${agent.online ? 'online' : 'offline'}`, 'data-presence': agent.online ? 'online' : 'offline' },
    agent.online ? 'online' : seen ? `offline since ${seen}` : 'offline',
  );
};

const agentCard = (state: DashboardState, agent: AgentSummary): HTMLElement => {
  const headingId = domId('agent', agent.agent_id);
  const plans = agent.plans.map((p) => planCard(state, p, p.plan_id === agent.current_plan_id));
  return h(
    'article',
    { class: 'agent', 'data-agent-id': agent.agent_id, 'aria-labelledby': headingId },
    h(
      'header',
      { class: 'agent-head' },
      h('h3', { id: headingId }, agent.agent_id),
      presenceBadge(agent),
      agent.mode && agent.mode !== 'normal' ? h('span', { class: 'badge mode' }, `${agent.mode} mode`) : null,
      h('span', { class: 'muted small' }, `${agent.plans.length} plan${agent.plans.length === 1 ? '' : 's'}`),
    ),
    ...(plans.length ? plans : [h('p', { class: 'muted' }, 'No plans.')]),
    agent.todos.length ? h('h4', { class: 'sub' }, 'Todos') : null,
    agent.todos.length ? todoList(agent.todos) : null,
    agent.tasks.length ? h('h4', { class: 'sub' }, 'Tasks') : null,
    agent.tasks.length ? h('ul', { class: 'tasks', 'aria-label': 'Tasks' }, ...agent.tasks.map(taskLine)) : null,
  );
};

/** Every agent of the workspace with its plans, todos and tasks. */
export const agentsView = (state: DashboardState): Node[] => {
  const snapshot = state.model.snapshot;
  if (!snapshot) return [h('p', { class: 'muted' }, 'Loading the workspace…')];
  if (snapshot.agents.length === 0)
    return [
      h('p', { class: 'muted' }, 'No agents yet. They appear here as soon as one creates a plan or a todo list.'),
    ];
  const unowned = snapshot.tasks.filter((t) => !t.owner);
  return [
    ...snapshot.agents.map((a) => agentCard(state, a)),
    unowned.length
      ? h(
          'article',
          { class: 'agent', 'aria-label': 'Unassigned tasks' },
          h('header', { class: 'agent-head' }, h('h3', {}, 'Unassigned tasks')),
          h('ul', { class: 'tasks' }, ...unowned.map(taskLine)),
        )
      : null,
  ].filter((n): n is HTMLElement => n !== null);
};
