import type { AgentSummary, TaskSummary, TodoSummary } from '@planhub/shared';
import { domId, h, timeOf } from '../dom.ts';
import { patchChildren } from '../patch.ts';
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

/** All an agent's card shows: its summary and what the page adds to it (highlights, folds the reader opened). */
const cardKey = (state: DashboardState, agent: AgentSummary): string => {
  const marks = agent.plans.map((p) => [
    state.expanded.has(p.plan_id),
    p.steps.filter((s) => state.flashing(p.plan_id, s.id)).map((s) => s.id),
  ]);
  return JSON.stringify([agent, marks]);
};

/**
 * Every agent of the workspace with its plans, todos and tasks. A card is built again only when its agent changed:
 * a team's page holds thousands of elements, and building them all at each event (for the patch to find most of
 * them unchanged) was most of the page's work.
 */
export const createAgentsView = (state: DashboardState, body: HTMLElement) => {
  let built = new Map<string, { key: string; card: Node }>();
  return {
    update() {
      const next = new Map<string, { key: string; card: Node }>();
      const nodes = agentsContent(state, (agent) => {
        const key = cardKey(state, agent);
        const kept = built.get(agent.agent_id);
        const entry = kept?.key === key ? kept : { key, card: agentCard(state, agent) };
        next.set(agent.agent_id, entry);
        return entry.card;
      });
      const placed = patchChildren(body, nodes);
      // What is kept is the card on the page: a card given to the patch is spent (its nodes moved into the old one).
      for (const entry of next.values()) entry.card = placed[nodes.indexOf(entry.card)] ?? entry.card;
      built = next;
    },
  };
};

const agentsContent = (state: DashboardState, cardOf: (agent: AgentSummary) => Node): Node[] => {
  const snapshot = state.model.snapshot;
  if (!snapshot) return [h('p', { class: 'muted' }, 'Loading the workspace…')];
  if (snapshot.agents.length === 0)
    return [
      h('p', { class: 'muted' }, 'No agents yet. They appear here as soon as one creates a plan or a todo list.'),
    ];
  const unowned = snapshot.tasks.filter((t) => !t.owner);
  return [
    ...snapshot.agents.map(cardOf),
    unowned.length
      ? h(
          'article',
          { class: 'agent', 'aria-label': 'Unassigned tasks' },
          h('header', { class: 'agent-head' }, h('h3', {}, 'Unassigned tasks')),
          h('ul', { class: 'tasks' }, ...unowned.map(taskLine)),
        )
      : null,
  ].filter((n): n is Node => n !== null);
};
