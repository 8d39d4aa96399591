import type { Caller, Subscription } from '@planhub/shared';
import type { Logger } from 'pino';
import { documents } from '../store/documents/documents.ts';
import type { Store } from '../store/store.ts';

export interface SessionStart {
  /** The agent's stored subscriptions (a session carries on those its agent made anywhere). */
  subscriptions: Subscription[];
  /** One of the agent's plans awaits a person's decision, wherever it was put up (a socket, another session). */
  awaitingDecision: boolean;
}

/**
 * What an MCP session reads as it opens: the agent's subscriptions and plan index together (one round trip, as the
 * subscriptions alone took), then only when the agent has unfinished plans, their headers (one more). A plan put up
 * for approval before the session began would otherwise send its decision to no host: the session listens for
 * decisions only from a call of its own that asks for one.
 */
export const readSessionStart = async (store: Store, caller: Caller, log: Logger): Promise<SessionStart> => {
  const subsKey = documents.subscriptions.key(caller.agent_id);
  const agentKey = documents.agent.key(caller.agent_id);
  const [subs, agent] = await store.load(caller.workspace, [subsKey, agentKey]);
  const subscriptions = documents.subscriptions.decode(subsKey, subs?.value)?.subscriptions ?? [];
  // Only whether to listen is decided from here on: a corrupt plan document must not keep its agent from opening any
  // session (its tools answer INTERNAL naming the key when they touch it), so it counts as possibly awaiting.
  const corrupt = (err: unknown) => {
    log.warn({ err, agent_id: caller.agent_id }, 'mcp session start: a stored plan document is corrupt; listening');
    return { subscriptions, awaitingDecision: true };
  };
  let unfinished;
  try {
    unfinished = (documents.agent.decode(agentKey, agent?.value)?.plans ?? []).filter((p) => !p.finished);
  } catch (err) {
    return corrupt(err);
  }
  if (unfinished.length === 0) return { subscriptions, awaitingDecision: false };
  const planKeys = unfinished.map((p) => documents.planRoot.key(p.plan_id));
  const roots = await store.load(caller.workspace, planKeys);
  try {
    const awaitingDecision = roots.some((raw, i) => {
      const root = documents.planRoot.decode(planKeys[i] ?? '', raw.value);
      return (root?.layout === 'header' ? root.header.status : root?.plan.status) === 'awaiting_approval';
    });
    return { subscriptions, awaitingDecision };
  } catch (err) {
    return corrupt(err);
  }
};
