import type { Dialect } from './model.ts';
import { INDEXED_PLAN_FAILURE_FIELDS } from './shapes/indexed-plan.ts';

/**
 * A failure the way each seed's own tools report it to the model (docs/dialects.md, "Errors, per dialect"): 000 (and PlanHub's own
 * tools) `{ error }`, 001 `{ message }`, 004 `{ ok: false, error }`, 002 and 003 a plain string. The object shapes
 * also carry the fields upstream sends beside its message (e.g. 000's validation gate: step_id, validation_required,
 * has_received_outputs). 002's string is upstream's: the JSON of `{ error, …fields }` for a refusal of the agent's
 * state (one that carries native fields, even none: "No active plan", "Already in plan mode" with current_goal), and
 * `Error: <message>` for the rest (arguments), so a host's `JSON.parse(result).error` works where upstream's did.
 */
export type NativeError = { error: string } | { message: string } | { ok: false; error: string } | string;

export const nativeError = (
  dialect: Dialect | 'planhub' | undefined,
  message: string,
  native?: Readonly<Record<string, unknown>>,
  tool?: string,
): NativeError => {
  // The message goes first, as upstream orders it, and the shape's own keys are never overwritten by a field.
  switch (dialect) {
    case '001':
      return Object.assign({ message }, native, { message });
    case '002':
      return native === undefined
        ? `Error: ${message}`
        : JSON.stringify(Object.assign({ error: message }, native, { error: message }));
    case '003':
      return message;
    case '004':
      // Upstream's output model, dumped: its unset fields (plan_id: null, steps_count: 0, …) before the error.
      return Object.assign(
        { ok: false as const, ...(tool === undefined ? {} : INDEXED_PLAN_FAILURE_FIELDS[tool]), error: message },
        native,
        { ok: false as const, error: message },
      );
    default:
      return Object.assign({ error: message }, native, { error: message });
  }
};
