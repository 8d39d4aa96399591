import type { Plan } from '@planhub/shared';
import { fail, folderOf } from '@planhub/shared';
import { hashKeys } from '../../store/keys.ts';
import type { Tx } from '../../store/transaction.ts';

/**
 * A working_dir is a folder every agent of the workspace can reach, as plan files in a shared folder were: plans
 * kept in one are listed in a per-folder hash (a commutative write, so agents updating different plans there never
 * conflict), and any agent naming the folder may read and update them. Plans without a working_dir stay private.
 */
export const recordInWorkingDir = (tx: Tx, plan: Plan): void => {
  if (plan.working_dir === undefined) return;
  const folder = folderOf(plan.working_dir);
  tx.op({ op: 'hset', key: hashKeys.workingDir(folder), fields: { [plan.plan_id]: plan.updated_at } });
};

/** The plan of the folder changed most recently, whoever changed it. */
export const latestInWorkingDir = async (
  tx: Tx,
  dir: string,
): Promise<{ plan_id: string; changed_at: string } | undefined> => {
  const { hashes } = await tx.collections({ hashes: [hashKeys.workingDir(dir)] });
  let latest: { plan_id: string; changed_at: string } | undefined;
  for (const [planId, changedAt] of Object.entries(hashes[0] ?? {}))
    if (!latest || changedAt > latest.changed_at) latest = { plan_id: planId, changed_at: changedAt };
  return latest;
};

/** Your own plans, and plans in the working_dir you name (the folder is shared), are yours to update. */
export const requireUpdatable = (plan: Plan, agentId: string, workingDir: string | undefined): void => {
  if (plan.agent_id === agentId) return;
  // Stored before round 30 as written ("/srv/repo/"): compared as the folder it names.
  if (plan.working_dir !== undefined && folderOf(plan.working_dir) === workingDir) return;
  fail(
    'PERMISSION_DENIED',
    `Plan ${plan.plan_id} belongs to agent ${plan.agent_id}; you (${agentId}) can only change your own plans` +
      (plan.working_dir !== undefined
        ? `, or plans in a working_dir you name: pass working_dir ${JSON.stringify(plan.working_dir)} to update it.`
        : '. It is not in a shared working_dir.'),
  );
};
