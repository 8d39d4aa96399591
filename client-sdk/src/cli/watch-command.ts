import type { PlanSummary } from '@planhub/shared';
import { EVENT_TYPES, WorkspaceModel, coalesceRetrying, renderPlanText, renderTodoBox } from '@planhub/shared';
import type { Command } from 'commander';
import { approvalLine } from './approval-line.ts';
import { closedByItself } from './closed-by-itself.ts';
import { openClient, readerIdOf, withConnection, withIdentity, type ConnectionFlags } from './connection.ts';
import { fitLines } from './fit-width.ts';
import { unsubscribeBriefly } from './unsubscribe-briefly.ts';
import { untilInterrupted } from './until-interrupted.ts';

type WatchFlags = ConnectionFlags & { agent?: string; as?: string };

const CLEAR = '\x1b[H\x1b[2J';
const FINISHED = new Set(['completed', 'failed', 'cancelled', 'rejected']);

/**
 * One frame: seed 000's rendering of each agent's plan, its todo list in seed 002's box (ANSI styles only on a
 * terminal), then what waits for a person.
 */
export const renderFrame = (
  model: WorkspaceModel,
  options: Pick<WatchFlags, 'workspace' | 'agent'>,
  status: string,
  color = false,
) => {
  const agents = (model.snapshot?.agents ?? []).filter(
    (a) => options.agent === undefined || a.agent_id === options.agent,
  );
  const lines = [`PlanHub · workspace ${options.workspace} · ${status}`, ''];
  if (agents.length === 0) lines.push(options.agent ? `Agent ${options.agent} has no plan yet.` : 'No agents yet.', '');
  for (const agent of agents) {
    const plan: PlanSummary | undefined = model.shownPlan(agent.agent_id);
    lines.push(`== ${agent.agent_id} ==`);
    lines.push(
      plan ? renderPlanText(plan, FINISHED.has(plan.status) ? 'Most Recent Plan' : 'Current Plan') : '(no plan)',
    );
    if (agent.todos.length > 0) lines.push('', renderTodoBox(agent.todos, { color, title: 'Todos' }));
    for (const waiting of agent.pending_approvals) lines.push(approvalLine(waiting.plan_id));
    lines.push('');
  }
  return lines.join('\n');
};

/**
 * `planhub watch`: the `plan` command's rendering, redrawn as events arrive and cut to the terminal's width (redrawn
 * when it changes). It reads the workspace overview once, then applies events (re-reading only when an event needs
 * it); after a reconnect the SDK resumes the stream. It ends when interrupted, or when the node refuses it for good
 * (its token expired: exit 1).
 */
export const watchCommand = (program: Command): Command =>
  withConnection(
    withIdentity(
      program
        .command('watch')
        .description("every agent's plan and todos, redrawn live to fit the terminal")
        .option('-a, --agent <id>', "only this agent's plan"),
    ),
  ).action(async (options: WatchFlags) => {
    const client = await openClient(options, readerIdOf(options.as));
    const closed = closedByItself(client);
    const model = new WorkspaceModel();
    const out = process.stdout;
    let status = 'live';
    let frame: ReturnType<typeof setTimeout> | undefined;
    const draw = () => {
      frame = undefined;
      const text = fitLines(
        renderFrame(model, options, status, out.isTTY),
        // A pseudo-terminal may report no size at all (0 columns): then nothing is cut.
        out.isTTY && out.columns > 0 ? out.columns : undefined,
      );
      out.write(out.isTTY ? `${CLEAR}${text}\n` : `${text}\n---\n`);
    };
    const schedule = () => {
      frame ??= setTimeout(draw, 30);
    };
    const read = () => client.getWorkspace(options.agent !== undefined ? { agent_id: options.agent } : {});
    // A failed re-read is tried again while connected: the events that asked for it will not ask again.
    const reread = coalesceRetrying(
      async () => {
        model.reset(await read());
        if (status.startsWith('error: ') && client.state === 'connected') status = 'live';
        schedule();
      },
      (err) => {
        status = `error: ${err instanceof Error ? err.message : String(err)}`;
        schedule();
      },
      () => client.state === 'connected',
    );
    const refresh = reread.run;
    const offEvent = client.on('event', (event) => {
      if (model.apply(event)) refresh();
      schedule();
    });
    const offState = client.on('state', (state) => {
      status = state === 'connected' ? 'live' : `${state}…`;
      if (state === 'connected') refresh();
      schedule();
    });
    out.on('resize', schedule);
    try {
      const snapshot = await read();
      model.reset(snapshot);
      const { subscription_id } = await client.subscribeToTasks({
        agent_id: options.agent ?? '*',
        event_types: [...EVENT_TYPES],
        after_event: snapshot.last_event_id ?? '0-0',
      });
      draw();
      await untilInterrupted(closed);
      await unsubscribeBriefly(client, subscription_id);
    } finally {
      reread.stop();
      offEvent();
      offState();
      out.off('resize', schedule);
      if (frame) clearTimeout(frame);
      client.close();
    }
  });
