import type { Store } from '@planhub/server';

export interface StoredWaiter {
  agent_id: string;
  plan_id: string;
  step_id: string;
}

/**
 * Who the store holds as waiting on the step `node`, read through the store's own interface: the list an earlier
 * version stored in the `waiters:` document, then the hash's entries (field: JSON [agent_id, plan_id, step_id]).
 * `version`: the document's (0 once it is gone).
 */
export const storedWaiters = async (store: Store, workspace: string, node: string) => {
  const [doc] = await store.load(workspace, [`waiters:${node}`]);
  const { hashes } = await store.loadCollections(workspace, { hashes: [`waiters:${node}`] });
  const listed = (doc?.value as { waiters: StoredWaiter[] } | undefined)?.waiters ?? [];
  const hashed = Object.keys(hashes[0] ?? {}).map((field): StoredWaiter => {
    const [agent_id = '', plan_id = '', step_id = ''] = JSON.parse(field) as string[];
    return { agent_id, plan_id, step_id };
  });
  return { waiters: [...listed, ...hashed], version: doc?.version ?? 0 };
};
