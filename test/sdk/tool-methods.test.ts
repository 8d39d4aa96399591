import type { ReservedName } from '@planhub/client-sdk';
import { PlanHubClientCore, attachToolMethods, createClient, llmMethods } from '@planhub/client-sdk';
import { TOOLS, TOOL_NAMES, longPollMs, takesRequestId, waitsForDecision } from '@planhub/shared';
import { describe, expect, expectTypeOf, it } from 'vitest';

/** Every name the client answers to on its own: its class's methods and fields, the LLM helpers, Object's. */
const clientNames = (): string[] => {
  const client = new PlanHubClientCore({ url: 'http://127.0.0.1:1', agentId: 'a' });
  const names = new Set<string>(Object.keys(client));
  for (let proto: object | null = client; proto; proto = Object.getPrototypeOf(proto) as object | null)
    for (const name of Object.getOwnPropertyNames(proto)) names.add(name);
  for (const name of Object.keys(llmMethods(() => Promise.reject(new Error('unused'))))) names.add(name);
  return [...names];
};

describe('tool methods never take over the client', () => {
  it('has no catalog tool named like a method or field of the client', () => {
    const reserved = new Set(clientNames());
    expect(TOOL_NAMES.filter((name) => reserved.has(name))).toEqual([]);
    expectTypeOf<Extract<(typeof TOOL_NAMES)[number], ReservedName>>().toEqualTypeOf<never>();
  });

  it('skips a tool named like a client method: the method stays, the tool stays reachable through call()', async () => {
    const client = new PlanHubClientCore({ url: 'http://127.0.0.1:1', agentId: 'a' });
    const called: unknown[] = [];
    const recordingCall = (tool: string, args: unknown) => {
      called.push([tool, args]);
      return Promise.resolve({ ok: true });
    };
    Object.defineProperty(client, 'call', { value: recordingCall });
    const attached = attachToolMethods(client, ['close', 'on', 'call', 'toString', 'constructor', 'fetchReport']);
    expect(attached).toEqual(['fetchReport']);
    // The class's methods are still the ones found (none was shadowed by an own property), and call is untouched.
    expect(Object.hasOwn(client, 'close')).toBe(false);
    expect(Object.hasOwn(client, 'on')).toBe(false);
    expect(Object.getOwnPropertyDescriptor(client, 'call')?.value).toBe(recordingCall);
    await (client as unknown as { fetchReport: (a: unknown) => Promise<unknown> }).fetchReport({ x: 1 });
    expect(called).toEqual([['fetchReport', { x: 1 }]]);
  });

  it('gives a created client one method per catalog tool, next to its own methods', () => {
    const client = createClient({ url: 'http://127.0.0.1:1', agentId: 'a' });
    for (const name of TOOL_NAMES) expect(client[name as 'createPlan']).toBeTypeOf('function');
    expect(client.tools).toBeTypeOf('function');
    expect(Object.hasOwn(client, 'close')).toBe(false);
    client.close();
  });
});

describe('tool behaviours come from the tool definitions', () => {
  it('marks startPlan as waiting for a decision unless wait is false, and as self-idempotent', () => {
    expect(waitsForDecision(TOOLS.startPlan, {})).toBe(true);
    expect(waitsForDecision(TOOLS.startPlan, { wait: true })).toBe(true);
    expect(waitsForDecision(TOOLS.startPlan, { wait: false })).toBe(false);
    expect(TOOLS.startPlan.behaviour?.selfIdempotent).toBe(true);
  });

  it('marks getTaskEvents as a long-poll held for its timeout argument', () => {
    expect(longPollMs(TOOLS.getTaskEvents, { timeout: 2.5 })).toBe(2500);
    // The server clamps a longer wait to 30 s, so the client's deadline follows the server's, not the argument.
    expect(longPollMs(TOOLS.getTaskEvents, { timeout: 600 })).toBe(30_000);
    expect(longPollMs(TOOLS.getTaskEvents, {})).toBe(0);
  });

  it('gives other tools no special behaviour', () => {
    const behaviourOf = (name: (typeof TOOL_NAMES)[number]) => (TOOLS[name] as { behaviour?: object }).behaviour ?? {};
    // readsBeforeAdmission only changes how the server orders a call's count and reads, and requestsDecision when an
    // MCP session starts listening for its agent's decisions: clients see nothing of either.
    const serverOnly = new Set(['readsBeforeAdmission', 'requestsDecision']);
    const special = TOOL_NAMES.filter((name) => Object.keys(behaviourOf(name)).some((k) => !serverOnly.has(k)));
    expect(special.sort()).toEqual(['getTaskEvents', 'startPlan', 'unsubscribe']);
    // unsubscribe is read-only and still carries a request_id (its repeat answers the first call).
    expect(TOOL_NAMES.filter((name) => TOOLS[name].readOnly && takesRequestId(TOOLS[name]))).toEqual(['unsubscribe']);
    const early = TOOL_NAMES.filter((name) => 'readsBeforeAdmission' in behaviourOf(name));
    expect(early.sort()).toEqual(['completeStepWithOutput', 'setStepStatus']);
    const deciding = TOOL_NAMES.filter((name) => 'requestsDecision' in behaviourOf(name));
    expect(deciding.sort()).toEqual(['plan_exit', 'plan_manage', 'startPlan']);
    expect(waitsForDecision(TOOLS.createPlan, {})).toBe(false);
    expect(longPollMs(TOOLS.createPlan, { timeout: 5 })).toBe(0);
  });
});
