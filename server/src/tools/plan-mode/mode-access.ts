import type { PlanMode, Plan } from '@planhub/shared';
import type { PlanModeDoc } from '../../core/plan-mode/mode.ts';
import { deriveMode } from '../../core/plan-mode/mode.ts';
import { stateRefusal } from '../../core/plan-mode/state-refusal.ts';
import { documents } from '../../store/documents/documents.ts';
import { docKeys } from '../../store/keys.ts';
import { readPlan } from '../live-plans.ts';
import type { Tx } from '../../store/transaction.ts';

export interface ModeState {
  agent_id: string;
  doc: PlanModeDoc | undefined;
  plan: Plan | undefined;
  mode: PlanMode;
}

/**
 * Agents whose mode this attempt found under the key of builds before 534ad52 (`mode002:<agent>`): the next write of
 * their mode deletes it, so it is never read again in place of a newer state.
 */
const legacyFound = new WeakMap<Tx, Set<string>>();

const noteLegacy = (tx: Tx, agentId: string, raw: unknown): void => {
  if (raw === undefined || raw === null) return;
  let found = legacyFound.get(tx);
  if (!found) legacyFound.set(tx, (found = new Set()));
  found.add(agentId);
};

/** The keys of agents' mode documents: read together in one round trip, the legacy ones unchecked. */
export const modeReadKeys = (agentIds: readonly string[]) => ({
  checked: agentIds.map(docKeys.planMode),
  unchecked: agentIds.map(docKeys.legacyPlanMode),
});

/**
 * An agent's 002 mode document from its two stored values (`planMode:`, then the legacy `mode002:`): the legacy
 * one counts only where the other is absent. It has the same shape, so nothing is converted.
 */
export const decodeModeDoc = (tx: Tx, agentId: string, raw: unknown, legacyRaw: unknown): PlanModeDoc | undefined => {
  noteLegacy(tx, agentId, legacyRaw);
  return (
    documents.planMode.decode(docKeys.planMode(agentId), raw) ??
    documents.legacyPlanMode.decode(docKeys.legacyPlanMode(agentId), legacyRaw)
  );
};

/**
 * An agent's 002 mode document. A build before 534ad52 stored it as `mode002:<agent>`: that key is loaded in the
 * same round trip (unchecked, so the commit checks it only when the call uses or writes it), read where
 * `planMode:<agent>` is absent, and moved to the new key by the agent's next mode write (putModeDoc, deleteModeDoc).
 */
export const readModeDoc = async (tx: Tx, agentId: string): Promise<PlanModeDoc | undefined> => {
  await tx.prefetch(modeReadKeys([agentId]));
  const doc = await tx.read(documents.planMode, agentId);
  const [legacy] = await tx.getUnchecked([docKeys.legacyPlanMode(agentId)]);
  noteLegacy(tx, agentId, legacy);
  if (doc || legacy === undefined || legacy === null) return doc;
  // Read checked from here on: the call acts on it.
  return tx.read(documents.legacyPlanMode, agentId);
};

/** Writes the agent's mode under its key, deleting the legacy one where this attempt found it. */
export const putModeDoc = (tx: Tx, agentId: string, doc: PlanModeDoc): void => {
  tx.put(docKeys.planMode(agentId), doc);
  dropLegacy(tx, agentId);
};

/** Deletes the agent's mode, the legacy one with it where this attempt found it. */
export const deleteModeDoc = (tx: Tx, agentId: string): void => {
  tx.delete(docKeys.planMode(agentId));
  dropLegacy(tx, agentId);
};

const dropLegacy = (tx: Tx, agentId: string): void => {
  if (legacyFound.get(tx)?.has(agentId)) tx.delete(docKeys.legacyPlanMode(agentId));
};

export const loadModeState = async (tx: Tx, agentId: string): Promise<ModeState> => {
  const doc = await readModeDoc(tx, agentId);
  const plan = doc?.plan_id !== undefined ? await readPlan(tx, doc.plan_id) : undefined;
  return { agent_id: agentId, doc, plan, mode: deriveMode(doc, plan) };
};

/**
 * The executing plan, or a refusal that tells the model where it stands and what to do instead. `action` is what the
 * call does to a plan, worded to take the plan as its object ("complete", "complete steps of"): the refusals read
 * "no plan to <action>" and "you cannot <action> it".
 */
export const requireExecuting = (state: ModeState, action: string): Plan => {
  if (state.mode === 'executing' && state.plan) return state.plan;
  if (state.mode === 'plan')
    stateRefusal(
      'FAILED_PRECONDITION',
      `No active plan: you are still in plan mode, so there is no approved plan to ${action}. Present your plan with plan_exit and ` +
        'wait for the approval.',
    );
  if (state.mode === 'awaiting_approval')
    stateRefusal(
      'FAILED_PRECONDITION',
      `No active plan: plan ${state.plan?.plan_id ?? ''} is awaiting the user's approval; you cannot ${action} it ` +
        'before it is approved. ' +
        'Wait for the plan_approved or plan_rejected event; do not poll.',
    );
  return stateRefusal(
    'FAILED_PRECONDITION',
    `No active plan: you are in normal mode, so there is no plan to ${action}. For complex work call plan_enter, then plan_exit with ` +
      'your plan, and execute it once approved.',
  );
};
