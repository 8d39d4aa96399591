import { isDeepStrictEqual } from 'node:util';

/** One unblock notification a parent received: which flow, and the names (or values) of the outputs it carried. */
export interface UnblockSeen {
  flow: number;
  outputs: readonly string[];
}

export interface FaninEvidence {
  flows: number;
  children: number;
  /**
   * Whether child `child` of flow `flow` was acknowledged as completed; undefined when its last attempt got no
   * answer (it may or may not have committed), which leaves its flow unjudged.
   */
  childDone(flow: number, child: number): boolean | undefined;
  /** Every unblock received, duplicates included. */
  unblocks: readonly UnblockSeen[];
  /** Notifications the run could not attribute to a flow (a foreign or malformed event). */
  strays: number;
  /** The key under which the parent of `flow` is expected to hold child `child`'s output. */
  outputKey(flow: number, child: number): string;
  /** What the parent of `flow` holds in the end (key → value), when the system lets us read it back. */
  finalOutputs?: (flow: number) => Record<string, unknown> | undefined;
  expectedOutput(flow: number, child: number): unknown;
}

export interface FaninVerdict {
  failures: string[];
  incompleteFlows: number;
}

const MAX_LISTED = 10;

/**
 * The fan-in's promise, checked after a run: every parent whose children all completed was unblocked exactly once,
 * carrying all of its children's outputs with the values they sent, and no parent was unblocked early. Flows whose
 * children did not all complete (a timed-out run) are counted, not judged.
 */
export const verifyFanin = (e: FaninEvidence): FaninVerdict => {
  const failures: string[] = [];
  const byFlow = new Map<number, UnblockSeen[]>();
  for (const u of e.unblocks) {
    if (!Number.isInteger(u.flow) || u.flow < 0 || u.flow >= e.flows) {
      failures.push(`an unblock named flow ${u.flow}, which the run never created`);
      continue;
    }
    byFlow.set(u.flow, [...(byFlow.get(u.flow) ?? []), u]);
  }
  if (e.strays > 0) failures.push(`${e.strays} unblock notifications matched no parent of the run`);
  let incompleteFlows = 0;
  for (let flow = 0; flow < e.flows; flow++) {
    const seen = byFlow.get(flow) ?? [];
    const states = Array.from({ length: e.children }, (_, child) => e.childDone(flow, child));
    const done = states.filter((s) => s === true).length;
    if (done < e.children) {
      incompleteFlows += 1;
      const unknown = states.includes(undefined);
      if (seen.length > 0 && !unknown)
        failures.push(`flow ${flow}: unblocked with ${done} of ${e.children} children completed`);
      continue;
    }
    if (seen.length !== 1) {
      failures.push(`flow ${flow}: ${seen.length} unblocks after all ${e.children} children completed (expected 1)`);
      if (seen.length === 0) continue;
    }
    const expectedKeys = Array.from({ length: e.children }, (_, child) => e.outputKey(flow, child));
    const carried = new Set(seen[0]?.outputs);
    const missing = expectedKeys.filter((k) => !carried.has(k));
    if (missing.length > 0)
      failures.push(`flow ${flow}: the unblock carried ${e.children - missing.length} of ${e.children} outputs`);
    const final = e.finalOutputs?.(flow);
    if (e.finalOutputs && !final) {
      failures.push(`flow ${flow}: the parent holds no received outputs`);
      continue;
    }
    if (!final) continue;
    for (let child = 0; child < e.children; child++) {
      const key = e.outputKey(flow, child);
      if (!isDeepStrictEqual(final[key], e.expectedOutput(flow, child))) {
        failures.push(`flow ${flow}: output ${key} is ${JSON.stringify(final[key]) ?? 'missing'}`);
        break;
      }
    }
  }
  const listed = failures.slice(0, MAX_LISTED);
  if (failures.length > MAX_LISTED) listed.push(`… and ${failures.length - MAX_LISTED} more violations`);
  return { failures: listed, incompleteFlows };
};
