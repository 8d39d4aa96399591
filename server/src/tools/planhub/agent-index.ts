import { withAgent, type AgentIndexDoc } from '../../core/workspace/overview.ts';
import { docKeys } from '../../store/keys.ts';
import type { Tx } from '../../store/transaction.ts';

/**
 * Adds an agent to the workspace's agent index. Call it only when an agent may be new (its own document does not
 * exist yet): the index is one document per workspace, and touching it on every write would make all agents'
 * calls conflict with each other.
 */
export const registerAgent = async (tx: Tx, agentId: string): Promise<void> => {
  const next = withAgent(await tx.get<AgentIndexDoc>(docKeys.agentIndex()), agentId);
  if (next) tx.put(docKeys.agentIndex(), next);
};

export const loadAgentIndex = async (tx: Tx): Promise<string[]> =>
  (await tx.get<AgentIndexDoc>(docKeys.agentIndex()))?.agents ?? [];
