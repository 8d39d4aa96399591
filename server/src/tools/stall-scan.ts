import type { AgentSummary } from '@planhub/shared';
import { decodeBrief } from '../core/plans/step-brief.ts';
import { planSummary } from '../core/workspace/overview.ts';
import { stalledSteps, type Stall } from '../presence/stalls.ts';
import { documents } from '../store/documents/documents.ts';
import { planDocuments } from '../store/documents/plan-documents.ts';
import { docKeys, hashKeys } from '../store/keys.ts';
import type { Store } from '../store/store.ts';
import { transact } from '../store/transact.ts';
import { readPlans } from './live-plans.ts';
import { decodeStep } from './plan-repository.ts';
import { loadAgentIndex } from './planhub/agent-index.ts';

const isOld = (iso: string | undefined, nowMs: number, afterMs: number) =>
  iso === undefined || nowMs - Date.parse(iso) >= afterMs;

/**
 * Which agents of the workspace's index one sweep reads: from `from` (in the index's order, which only grows at its
 * end), as many as a full pass in `pages` sweeps needs, and at least MIN_PAGE.
 */
export interface ScanPage {
  from: number;
  pages: number;
}

/** Agents one sweep reads at least: a small workspace is read whole each time. */
export const MIN_PAGE = 100;

export interface StallScan {
  stalls: Stall[];
  /** Where the next sweep starts: 0 once this one read the index to its end. */
  next: number;
}

/**
 * The workspace's stalled steps (presence/stalls.ts), read in proportion to what could be stalled rather than to the
 * workspace: the agents' indexes, then the unfinished plans' headers and step briefs, then the documents of steps in
 * progress, and only plans with a step in progress since before `afterMs` whole. The sweep runs every few seconds
 * on every node; reading the whole overview (getWorkspace: every plan shown, every step) made it a periodic stall
 * of its own in a busy workspace (about 20,000 documents in one read for 100 agents with 50-step plans).
 *
 * With `page`, one sweep reads only a page of the agents: reading every agent of a workspace with 1,000 agents and
 * an unfinished plan each (the bench's 100k-plan workspace) took about 200 ms of the node's CPU in one stretch,
 * every 10 s, and held every call behind it. A page bounds that, and a full pass still takes `page.pages` sweeps.
 */
export const findStalls = async (
  store: Store,
  workspace: string,
  nowMs: number,
  afterMs: number,
  page?: ScanPage,
): Promise<StallScan> =>
  (
    await transact(
      store,
      workspace,
      async (tx): Promise<StallScan> => {
        const index = await loadAgentIndex(tx);
        const from = page && page.from < index.length ? page.from : 0;
        const size = page ? Math.max(MIN_PAGE, Math.ceil(index.length / Math.max(1, page.pages))) : index.length;
        const agentIds = index.slice(from, from + size);
        const next = from + size < index.length ? from + size : 0;
        const agents = await tx.readMany(
          documents.agent,
          agentIds.map((id) => [id]),
        );
        const planIds = agents.flatMap((agent) =>
          (agent?.plans ?? []).filter((p) => !p.finished).map((p) => p.plan_id),
        );
        if (planIds.length === 0) return { stalls: [], next };
        await tx.prefetch({ checked: planIds.map(docKeys.plan), hashes: planIds.map(hashKeys.stepBriefs) });
        const roots = await tx.getMany(planIds.map(docKeys.plan));
        const whole: string[] = [];
        const candidates: Array<{ planId: string; stepId: string }> = [];
        for (const [i, planId] of planIds.entries()) {
          const root = planDocuments.planRoot.decode(docKeys.plan(planId), roots[i]);
          if (!root) continue;
          if (root.layout === 'whole') {
            if (root.plan.status === 'in_progress') whole.push(planId);
            continue;
          }
          if (root.header.status !== 'in_progress') continue;
          const briefs = await tx.hash(hashKeys.stepBriefs(planId));
          for (const stepId of root.header.step_ids)
            // A missing or unreadable brief may hide a step in progress: its document decides.
            if ((decodeBrief(stepId, briefs[stepId])?.status ?? 'in_progress') === 'in_progress')
              candidates.push({ planId, stepId });
        }
        const stepDocs = await tx.getUnchecked(candidates.map((c) => docKeys.planStep(c.planId, c.stepId)));
        const suspects = new Set(whole);
        candidates.forEach(({ planId, stepId }, i) => {
          const doc = decodeStep(docKeys.planStep(planId, stepId), stepDocs[i]);
          if (doc.step.status === 'in_progress' && isOld(doc.step.started_at, nowMs, afterMs)) suspects.add(planId);
        });
        if (suspects.size === 0) return { stalls: [], next };
        // The suspects whole: a plan changed since is no stall (its last update counts, as getWorkspace shows it).
        const plans = await readPlans(tx, [...suspects]);
        const byAgent = new Map<string, Pick<AgentSummary, 'agent_id' | 'plans'>>();
        for (const plan of plans) {
          if (!plan) continue;
          const entry = byAgent.get(plan.agent_id) ?? { agent_id: plan.agent_id, plans: [] };
          entry.plans.push(planSummary(plan));
          byAgent.set(plan.agent_id, entry);
        }
        return { stalls: stalledSteps([...byAgent.values()], nowMs, afterMs), next };
      },
      { maxAttempts: 1 },
    )
  ).result;
