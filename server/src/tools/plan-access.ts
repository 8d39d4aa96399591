import type { Caller, Plan } from '@planhub/shared';
import { FINISHED_PLAN_STATUSES, fail } from '@planhub/shared';
import type { AgentDoc } from '../core/agents/agent-doc.ts';
import { defaultPlanId, currentPlanId, emptyAgent, touchPlan } from '../core/agents/agent-doc.ts';
import { missingPlanMessage } from '../core/agents/retention.ts';
import type { CurrentPlanTool } from '../core/plans/no-plan.ts';
import { noCurrentPlanMessage } from '../core/plans/no-plan.ts';
import { documents } from '../store/documents/documents.ts';
import { planDocuments } from '../store/documents/plan-documents.ts';
import { docKeys } from '../store/keys.ts';
import { readPlan } from './live-plans.ts';
import { type ReadRef, writePlan } from './plan-repository.ts';
import { readForAppend, readPlanForStep, readStepChange, type StepChangeRead } from './plan-step-read.ts';
import { registerAgent } from './planhub/agent-index.ts';
import type { Tx } from '../store/transaction.ts';

export const loadAgent = async (tx: Tx, agentId: string): Promise<AgentDoc> =>
  (await tx.read(documents.agent, agentId)) ?? emptyAgent(agentId);

/** A plan named by id that is not stored (see missingPlanMessage), and where the caller's own plans are. */
const planNotStored = (planId: string): never =>
  fail('NOT_FOUND', `${missingPlanMessage(planId)} Call getPlanStatus without plan_id for your current plan.`);

/**
 * How much of a plan's steps a call reads: `whole`, every step in full; `brief`, each step as its brief (id,
 * sequence, description, status; plan-step-read.ts), for a call that changes none of them and answers no more of
 * them than that. A brief read costs one hash read instead of a document parse and check per step.
 */
export type StepDetail = 'whole' | 'brief';

export const loadPlan = async (tx: Tx, planId: string, detail: StepDetail = 'whole'): Promise<Plan> =>
  (await (detail === 'brief' ? readPlanForStep(tx, planId) : readPlan(tx, planId))) ?? planNotStored(planId);

/**
 * The statuses of plans by id, from their headers alone (read checked, as a whole read checks them): a call that
 * needs only to know whether one of an agent's plans runs reads no step. createPlan, refused while one does, used to
 * read every step of each of up to 50 unfinished plans for it: 10,000 step documents, 51-66 ms of CPU per refusal.
 */
export const planStatuses = async (tx: Tx, planIds: readonly string[]): Promise<Array<Plan['status'] | undefined>> =>
  (await tx.getMany(planIds.map(docKeys.plan))).map((raw, i) => {
    const root = planDocuments.planRoot.decode(docKeys.plan(planIds[i] ?? ''), raw);
    return root === undefined ? undefined : root.layout === 'whole' ? root.plan.status : root.header.status;
  });

export interface PlanTarget {
  plan_id?: string | undefined;
  /** Another agent whose current plan is meant (reads only). */
  agent_id?: string | undefined;
}

/**
 * Which plan a call without plan_id means: `write` the caller's current plan (which it must own); `read` the current
 * plan too, or for another agent's plan its most recent one when none is unfinished (a parent reading a subagent's
 * finished work); `latest` the current plan, else the caller's most recent one (startPlan's retry finds a decision).
 */
export type PlanUse = 'read' | 'write' | 'latest';

/**
 * The plan a call acts on: the named one, or the agent's current plan. `write` calls may only touch the caller's
 * own plans (docs/invariants.md, invariant 6). `tool` picks the wording of the refusal when there is no plan.
 */
export const resolvePlan = async (
  tx: Tx,
  caller: Caller,
  target: PlanTarget,
  mode: PlanUse,
  tool: CurrentPlanTool,
  detail: StepDetail = 'whole',
): Promise<Plan> => {
  let plan: Plan;
  if (target.plan_id !== undefined) {
    plan = await loadPlan(tx, target.plan_id, detail);
  } else {
    const agentId = target.agent_id ?? caller.agent_id;
    const own = agentId === caller.agent_id;
    const agent = await loadAgent(tx, agentId);
    const planId = mode === 'latest' || (mode === 'read' && !own) ? defaultPlanId(agent) : currentPlanId(agent);
    if (planId === undefined)
      return fail(
        'NOT_FOUND',
        own
          ? noCurrentPlanMessage(tool, agentId, agent.plans.at(-1)?.plan_id)
          : `Agent ${agentId} has no plan in this workspace.`,
      );
    plan = await loadPlan(tx, planId, detail);
  }
  return mode === 'write' ? ownPlan(plan, caller) : plan;
};

/** The plan an append goes to: the named one, else the caller's current plan (undefined: none, resolvePlan says so). */
export const appendTarget = async (tx: Tx, caller: Caller, planId: string | undefined): Promise<string | undefined> =>
  planId ?? currentPlanId(await loadAgent(tx, caller.agent_id));

/** The caller's own plan `planId` as an append reads it (see readForAppend). */
export const resolveForAppend = async (tx: Tx, caller: Caller, planId: string): Promise<StepChangeRead> => {
  const read = (await readForAppend(tx, planId)) ?? planNotStored(planId);
  return { ...read, plan: ownPlan(read.plan, caller) };
};

/** The caller's own plan `planId` as a change of its step `stepId` reads it (see readStepChange). */
export const resolveStepChange = async (
  tx: Tx,
  caller: Caller,
  planId: string,
  stepId: string,
): Promise<StepChangeRead> => {
  const read = (await readStepChange(tx, planId, stepId)) ?? planNotStored(planId);
  return { ...read, plan: ownPlan(read.plan, caller) };
};

const ownPlan = (plan: Plan, caller: Caller): Plan => {
  if (plan.agent_id !== caller.agent_id)
    fail(
      'PERMISSION_DENIED',
      `Plan ${plan.plan_id} belongs to agent ${plan.agent_id}; you (${caller.agent_id}) can only change your own plans.`,
    );
  return plan;
};

/**
 * Whether the owner's index must change with this write: it lists each plan with whether it finished and its
 * working_dir, so it is written when a plan appears or finishes, never by a step change; seed 004 orders plans by
 * their last change, so its plans keep the index's change time current.
 */
const indexChanges = (before: ReadRef | undefined, plan: Plan): boolean =>
  before === undefined ||
  FINISHED_PLAN_STATUSES.has(before.status) !== FINISHED_PLAN_STATUSES.has(plan.status) ||
  before.working_dir !== plan.working_dir ||
  plan.dialect === '004';

/** The agents whose index each call's transaction wrote: retention (plan-retention.ts) prunes those. */
const indexWrites = new WeakMap<Tx, Set<string>>();

export const indexesWrittenBy = (tx: Tx): ReadonlySet<string> => indexWrites.get(tx) ?? new Set();

/**
 * Writes what changed in a plan (see plan-repository.ts) and keeps its owner's index current (and the workspace's
 * agent index, for a new agent).
 */
export const savePlan = async (tx: Tx, plan: Plan): Promise<void> => {
  if (!indexChanges(writePlan(tx, plan), plan)) return;
  const agent = await loadAgent(tx, plan.agent_id);
  if (agent.plans.length === 0) await registerAgent(tx, plan.agent_id);
  tx.put(docKeys.agent(plan.agent_id), touchPlan(agent, plan));
  let written = indexWrites.get(tx);
  if (!written) indexWrites.set(tx, (written = new Set()));
  written.add(plan.agent_id);
};
