import type { Caller } from '@planhub/shared';
import type { EventStream } from './event-stream.ts';

/**
 * This node's event streams by agent. Subscriptions belong to the agent, and each stream keeps its own filters:
 * an unsubscribe made on one connection must reach the agent's other connections here too, or they go on pushing
 * what the agent asked to stop (a stream on another node drops it at its next subscribe, which reads them again).
 */
export class AgentStreams {
  private readonly byAgent = new Map<string, Set<EventStream>>();

  add(caller: Caller, stream: EventStream): () => void {
    const key = `${caller.workspace}\u0000${caller.agent_id}`;
    let streams = this.byAgent.get(key);
    if (!streams) this.byAgent.set(key, (streams = new Set()));
    streams.add(stream);
    const own = streams;
    return () => {
      own.delete(stream);
      if (own.size === 0 && this.byAgent.get(key) === own) this.byAgent.delete(key);
    };
  }

  unsubscribed(caller: Caller, ids: readonly string[]): void {
    for (const stream of this.byAgent.get(`${caller.workspace}\u0000${caller.agent_id}`) ?? []) stream.unsubscribe(ids);
  }
}
