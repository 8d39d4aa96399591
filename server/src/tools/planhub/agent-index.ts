import { documents } from '../../store/documents/documents.ts';
import { hashKeys } from '../../store/keys.ts';
import type { Tx } from '../../store/transaction.ts';

/**
 * Adds an agent to the workspace's agent index, a hash set only if the field is new: commutative, so agents
 * appearing at the same time never conflict. Call it when an agent may be new (its own document does not exist yet).
 */
export const registerAgent = (tx: Tx, agentId: string): Promise<void> => {
  // Sub-millisecond, so agents that appear one after the other keep their order.
  const seen = (performance.timeOrigin + performance.now()).toFixed(3);
  tx.op({ op: 'hset', key: hashKeys.agents(), fields: { [agentId]: seen }, onlyNew: true });
  return Promise.resolve();
};

/** Agents of the index written before it was a hash come first, in their order; then by first appearance. */
export const loadAgentIndex = async (tx: Tx): Promise<string[]> => {
  const [legacy, { hashes }] = await Promise.all([
    tx.read(documents.legacyAgentIndex),
    tx.collections({ hashes: [hashKeys.agents()] }),
  ]);
  const listed = legacy?.agents ?? [];
  const added = Object.entries(hashes[0] ?? {})
    .filter(([agent]) => !listed.includes(agent))
    .sort(([a, x], [b, y]) => Number(x) - Number(y) || (a < b ? -1 : 1))
    .map(([agent]) => agent);
  return [...listed, ...added];
};
