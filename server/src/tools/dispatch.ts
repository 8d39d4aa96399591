import type { CallAck, Caller, ToolDefinition } from '@planhub/shared';
import type { z } from 'zod';
import {
  CallRequestSchema,
  PlanHubError,
  TOOLS,
  TOOL_NAMES,
  isToolName,
  parseArguments,
  plainErrorMap,
  takesRequestId,
} from '@planhub/shared';
import { clippedShape, invalidArguments, toPlanHubError } from '../errors/to-error-shape.ts';
import { chargeWork, isRateLimited } from '../limits/call-limiter.ts';
import { chargeDone } from '../limits/answer-cost.ts';
import { recordCost, writeCost } from '../limits/write-cost.ts';
import { checkShape } from '../limits/json-shape.ts';
import { refuseWriteBeforeParsing } from './role-first.ts';
import { requestFingerprint } from '../store/request-fingerprint.ts';
import type { CallBudget } from '../store/call-budget.ts';
import { transact } from '../store/transact.ts';
import type { Tx } from '../store/transaction.ts';
import { ensureUpgraded } from './legacy-upgrade.ts';
import { parseToolArgs } from './tool-args.ts';
import { callRequestId } from './call-request-id.ts';
import { applyRetention } from './plan-retention.ts';
import type { CallContext, ConnectionHooks, Services, ToolHandler, ToolHandlers } from './context.ts';

export interface CallSite {
  caller: Caller;
  signal: AbortSignal;
  connection?: ConnectionHooks;
  /** Budget units the call is charged (1 plus 1 per 16 KiB of its frame); 1 when absent. */
  cost?: number;
  /** What the call may spend waiting on the store (store/call-budget.ts); unbounded when absent. */
  budget?: CallBudget;
}

export type Dispatch = (site: CallSite, raw: unknown) => Promise<CallAck>;

/** Every call that writes an agent's plan index applies retention in the same commit (plan-retention.ts). */
const withRetention =
  <R>(services: Services, body: (tx: Tx) => Promise<R>) =>
  async (tx: Tx): Promise<R> => {
    const result = await body(tx);
    await applyRetention(tx, services.config.finishedPlansKept, services.now());
    return result;
  };

/**
 * A call whose envelope ({ tool, args, request_id? }) is malformed: refused as its tool's arguments when it names a
 * tool (`args: [1]` is that tool's arguments sent wrong), else with what a call is. There is no tool named "call",
 * which the refusal used to name.
 */
const malformedCall = (error: z.ZodError, raw: unknown): PlanHubError => {
  const named = (raw as { tool?: unknown } | null)?.tool;
  if (typeof named === 'string' && isToolName(named)) return invalidArguments(named, error, raw);
  return invalidArguments(
    'call',
    error,
    raw,
    'A call is { tool, args, request_id? }: tool names a tool of the tool list, args is an object of its arguments.',
  );
};

/**
 * The single path of every call: parse → authorize → validate → run → acknowledge. Handlers throw PlanHubError;
 * nothing else reaches the client.
 */
export const createDispatch = (services: Services, handlers: ToolHandlers): Dispatch => {
  const log = services.log.child({ module: 'dispatch' });
  return async (site, raw) => {
    const started = performance.now();
    let tool = 'unknown';
    const admission = services.callLimiter.admit(site.caller, site.cost, site.budget);
    try {
      if (!admission.early) await admission.settled;
      refuseWriteBeforeParsing(site.caller, raw);
      checkShape('arguments', raw, { maxDepth: services.config.limits.argsDepth, wellFormedText: 'call' });
      const request = parseArguments(CallRequestSchema, raw, plainErrorMap);
      if (!request.success) throw malformedCall(request.error, raw);
      tool = request.data.tool;
      if (!isToolName(tool))
        throw new PlanHubError(
          'NOT_FOUND',
          `Unknown tool "${tool.slice(0, 64)}". Valid tools: ${TOOL_NAMES.join(', ')}.`,
        );
      const def = TOOLS[tool];
      if (site.caller.role === 'dashboard' && !def.readOnly)
        throw new PlanHubError(
          'PERMISSION_DENIED',
          `Dashboards are read-only; ${tool} changes state. Connect as an agent or user.`,
        );
      const { requestId, args: toolArgs } = callRequestId(request.data);
      const args = { data: parseToolArgs(tool, toolArgs) };
      // Only a tool whose effects are its commit may run before its count answers (the commit waits for it).
      if (!(def as ToolDefinition).behaviour?.readsBeforeAdmission) await admission.settled;
      const ctx: CallContext = {
        caller: site.caller,
        services,
        signal: site.signal,
        ...(requestId !== undefined ? { requestId } : {}),
        ...(site.connection ? { connection: site.connection } : {}),
        chargeWork: (units) => chargeWork(services.callLimiter, site.caller, units, site.budget),
        budget: site.budget,
        transact: async (body) => {
          const done = await transact(services.store, site.caller.workspace, withRetention(services, body), {
            admitted: admission.settled,
            budget: site.budget,
            ...(requestId !== undefined && takesRequestId(def) && !(def as ToolDefinition).behaviour?.selfIdempotent
              ? {
                  request: {
                    agent_id: site.caller.agent_id,
                    request_id: requestId,
                    ttl_ms: services.config.requestTtlMs,
                    keep: services.config.limits.requestsPerAgent,
                    // One canonical JSON and hash, of the arguments as sent: how this build parses them is
                    // no part of the call's identity. The parsed ones are hashed only on a retry that needs it.
                    fingerprint: requestFingerprint(tool, toolArgs),
                    earlierFingerprint: () => requestFingerprint(tool, args.data),
                  },
                }
              : {}),
          });
          // Charged once the commit applied, as an answer's size is: the agent's next calls pay for a large write.
          chargeDone(services.callLimiter, site.caller, writeCost(done.written ?? 0) + recordCost(done.recorded ?? 0));
          return done.result;
        },
      };
      await ensureUpgraded(services.store, site.caller.workspace, site.budget);
      const handler = handlers[tool] as ToolHandler<typeof tool>;
      const result = await handler(ctx, args.data);
      await admission.settled;
      log.debug({ tool, ms: performance.now() - started, agent_id: site.caller.agent_id }, 'call ok');
      return { ok: true, result };
    } catch (thrown) {
      // A call refused by its count answers that refusal, whatever else went wrong while it was being counted.
      const err: unknown = await admission.settled.then(
        () => thrown,
        (refusal: unknown) => refusal,
      );
      const error = toPlanHubError(err);
      const entry = { tool, code: error.code, agent_id: site.caller.agent_id, workspace: site.caller.workspace };
      if (error.code === 'INTERNAL') log.error({ ...entry, err }, 'call failed');
      // debug: an outage is logged once per change of state by the store monitor, not once per call (a 40 s outage
      // wrote ~49k lines); planhub_calls_total{code="UNAVAILABLE"} still counts every one.
      else if (error.code === 'UNAVAILABLE') log.debug({ ...entry, message: error.message }, 'call unavailable');
      else if (isRateLimited(error)) log.debug({ ...entry, message: error.message }, 'call refused');
      else log.info({ ...entry, message: error.message }, 'call refused');
      return { ok: false, error: clippedShape(error) };
    }
  };
};
