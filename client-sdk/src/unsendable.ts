import { PlanHubError } from '@planhub/shared';

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

const child = (at: string, key: string | number): string =>
  typeof key === 'number' ? `${at}[${key}]` : IDENTIFIER.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`;

/** Where the trouble is (the keys down to it) and what it is; `loopTo` is how deep the object it loops back to sits. */
interface Problem {
  keys: (string | number)[];
  what: string | { loopTo: number };
}

/**
 * Why `value` cannot be sent as JSON, or undefined when it can. A circular object made socket.io's encoder recurse
 * until "Maximum call stack size exceeded", a BigInt made JSON.stringify throw; both came as INTERNAL although the
 * caller's input was at fault. What JSON leaves out (undefined, functions, symbols) is no problem: the node reads a
 * field left out as absent. Walked on every call, so the path is named only once a problem is found.
 */
const problemIn = (value: unknown, ancestors: object[]): Problem | undefined => {
  if (typeof value === 'bigint')
    return { keys: [], what: `is a BigInt (${value}n), which JSON cannot carry: pass a number or a string` };
  // Binary goes out as socket.io attachments, not as JSON.
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value) || value instanceof ArrayBuffer)
    return undefined;
  const loopTo = ancestors.indexOf(value);
  if (loopTo >= 0) return { keys: [], what: { loopTo } };
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    // What JSON sends of a Date (and of any object with toJSON) is what toJSON returns.
    const sent: unknown = toJSON.call(value);
    if (sent !== value) return problemIn(sent, ancestors);
  }
  ancestors.push(value);
  try {
    const keys: (string | number)[] = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
    for (const key of keys) {
      const problem = problemIn((value as Record<string | number, unknown>)[key], ancestors);
      if (problem === undefined) continue;
      problem.keys.unshift(key);
      return problem;
    }
    return undefined;
  } finally {
    ancestors.pop();
  }
};

const pathOf = (keys: readonly (string | number)[]): string => keys.reduce<string>(child, 'args');

const described = ({ keys, what }: Problem): string =>
  typeof what === 'string'
    ? `${pathOf(keys)} ${what}`
    : `${pathOf(keys)} is ${pathOf(keys.slice(0, what.loopTo))} itself (a circular reference): pass plain data without the loop`;

/**
 * INVALID_ARGUMENT for arguments that cannot be sent, before the call takes one of the client's places on the wire
 * or waits for a connection; undefined when they can be sent.
 */
export const unsendable = (tool: string, args: unknown): PlanHubError | undefined => {
  let problem: string | undefined;
  try {
    const found = problemIn(args, []);
    problem = found && described(found);
  } catch (err) {
    // A getter or toJSON that throws, or nesting too deep to walk (JSON.stringify could not either).
    problem = `args could not be read: ${err instanceof Error ? err.message : String(err)}`;
  }
  return problem === undefined
    ? undefined
    : new PlanHubError('INVALID_ARGUMENT', `The arguments of ${tool} cannot be sent as JSON: ${problem}.`);
};
