import { PlanHubError } from '@planhub/shared';

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

const child = (at: string, key: string | number): string =>
  typeof key === 'number' ? `${at}[${key}]` : IDENTIFIER.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`;

/**
 * Why `value` cannot be sent as JSON, naming where in it the trouble is, or undefined when it can. A circular object
 * made socket.io's encoder recurse until "Maximum call stack size exceeded", a BigInt made JSON.stringify throw; both
 * came as INTERNAL although the caller's input was at fault. What JSON leaves out (undefined, functions, symbols) is
 * no problem: the node reads a field left out as absent.
 */
const problemIn = (value: unknown, at: string, ancestors: Map<object, string>): string | undefined => {
  if (typeof value === 'bigint')
    return `${at} is a BigInt (${value}n), which JSON cannot carry: pass a number or a string`;
  // Binary goes out as socket.io attachments, not as JSON.
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value) || value instanceof ArrayBuffer)
    return undefined;
  const loop = ancestors.get(value);
  if (loop !== undefined) return `${at} is ${loop} itself (a circular reference): pass plain data without the loop`;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    // What JSON sends of a Date (and of any object with toJSON) is what toJSON returns.
    const sent: unknown = toJSON.call(value);
    if (sent !== value) return problemIn(sent, at, ancestors);
  }
  ancestors.set(value, at);
  try {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const problem = problemIn(value[i], child(at, i), ancestors);
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
    for (const key of Object.keys(value)) {
      const problem = problemIn((value as Record<string, unknown>)[key], child(at, key), ancestors);
      if (problem !== undefined) return problem;
    }
    return undefined;
  } finally {
    ancestors.delete(value);
  }
};

/**
 * INVALID_ARGUMENT for arguments that cannot be sent, before the call takes one of the client's places on the wire
 * or waits for a connection; undefined when they can be sent.
 */
export const unsendable = (tool: string, args: unknown): PlanHubError | undefined => {
  let problem: string | undefined;
  try {
    problem = problemIn(args, 'args', new Map());
  } catch (err) {
    // A getter or toJSON that throws, or nesting too deep to walk (JSON.stringify could not either).
    problem = `args could not be read: ${err instanceof Error ? err.message : String(err)}`;
  }
  return problem === undefined
    ? undefined
    : new PlanHubError('INVALID_ARGUMENT', `The arguments of ${tool} cannot be sent as JSON: ${problem}.`);
};
