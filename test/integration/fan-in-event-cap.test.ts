import { connect, type EventEnvelope, type PlanHubClient } from '@planhub/client-sdk';
import { createServer, type PlanHubServer } from '@planhub/server';
import { MAX_EVENT_BYTES } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { OMITTED_OUTPUT } from '../../server/src/events/event-size.ts';
import { recordEvents, startedPlan, unblocksOf } from '../helpers/event-log.ts';
import { storeFixture, type StoreFixture, type StoreFixtureKind } from '../helpers/stores.ts';
import { within } from '../helpers/within.ts';

const KINDS: readonly StoreFixtureKind[] = ['memory', 'redis', 'redis-cluster', 'file'];
/** The smallest outbound limit a node takes (two of the largest events), so one event past 1 MiB cuts its reader. */
const OUTBOUND = 2 * MAX_EVENT_BYTES;
const CHILDREN = 80;
/**
 * 80 outputs of 60 KB (an output may be 64 KiB): 4.8 MB together, past the event cap and far enough past the outbound
 * limit that the kernel's socket buffers do not absorb it (the event the fill made cut its waiting agent here).
 */
const output = (i: number, bytes = 60_000) => ({ part: i, blob: String(i % 10).repeat(bytes) });

const bytesOf = ({ event_id: _, ...event }: EventEnvelope) => Buffer.byteLength(JSON.stringify(event));
/** The keys a step_unblocked read from the log left out of its outputs. */
const omittedOf = (event: EventEnvelope | undefined) =>
  (event?.payload as { outputs_omitted?: string[] } | undefined)?.outputs_omitted ?? [];

/**
 * A step waiting on many agents' steps was announced by a step_unblocked holding every received output, spliced in
 * by the store after the event cap had measured it with a token in their place: 12 outputs of 60 KB made a 720 KB
 * event, 150 a 9 MB one, which cut its waiting agent (and every subscriber replaying it) as a slow consumer on each
 * attempt. Now the event carries what fits within the cap and names the outputs it left out; they stay readable.
 */
describe.each(KINDS)('a fan-in whose outputs together pass the event cap (%s store)', (kind) => {
  let fixture: StoreFixture;
  let server: PlanHubServer;
  let url: string;
  const clients: PlanHubClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await server.close();
    await fixture.close();
  });

  const start = async () => {
    fixture = storeFixture(kind);
    server = createServer(
      {
        port: 0,
        logLevel: 'silent',
        approvalPolicy: 'auto',
        limits: { outboundBytes: OUTBOUND, callsPerSecond: 100_000, callsPerAddressPerSecond: 1_000_000 },
      },
      { store: fixture.open() },
    );
    ({ url } = await server.listen());
  };
  const join = async (agentId: string) => {
    const client = await connect({ url, agentId, workspace: 'ws' });
    clients.push(client);
    return client;
  };
  /** Agents child-00… (in key order) each with a started plan; the dependencies on their first steps. */
  const children = async (count: number) => {
    const names = Array.from({ length: count }, (_, i) => `child-${String(i).padStart(2, '0')}`);
    const agents = await Promise.all(names.map(join));
    const plans = await Promise.all(agents.map((a, i) => startedPlan(a, `part ${i}`, ['part'])));
    const refs = plans.map((p, i) => ({ agent_id: names[i] ?? '', step_id: 'step_1', plan_id: p.plan_id }));
    return { agents, refs };
  };
  /** Every state change of a client that is not its first connection: a cut shows as 'disconnected'. */
  const states = (client: PlanHubClient) => {
    const seen: string[] = [];
    client.on('state', (state) => seen.push(state));
    return seen;
  };

  it('delivers one step_unblocked within the cap to its waiting agent, who stays connected', async () => {
    await start();
    const parent = await join('parent');
    const plan = await startedPlan(parent, 'merge', ['plan the merge']);
    const log = recordEvents(parent);
    const parentStates = states(parent);
    await parent.subscribeToTasks({ event_types: ['step_unblocked'] });
    const { agents, refs } = await children(CHILDREN);
    await parent.addDependentStep({ description: 'merge the parts', depends_on: refs });

    for (const [i, child] of agents.entries()) {
      // No completion is refused: many large outputs feeding one step are legitimate.
      const done = await child.completeStepWithOutput({ step_id: 'step_1', output: output(i) });
      expect(done.unblocked).toHaveLength(i === CHILDREN - 1 ? 1 : 0);
    }

    const unblocked = await within(
      log.next((e) => e.event_type === 'step_unblocked'),
      15_000,
      'never delivered',
    );
    if (unblocked === 'never delivered') throw new Error(`never delivered; parent states ${parentStates.join()}`);
    expect(bytesOf(unblocked)).toBeLessThanOrEqual(MAX_EVENT_BYTES);
    const keys = refs.map((r) => `${r.agent_id}:step_1`);
    const payload = unblocked.payload as {
      received_outputs: string[];
      outputs: Record<string, unknown>;
      outputs_omitted?: string[];
    };
    expect(payload.received_outputs).toEqual(keys);
    // The outputs that fit, in key order, and a marker for each of the others, which the event names.
    const omitted = payload.outputs_omitted ?? [];
    expect(omitted.length).toBeGreaterThan(0);
    expect(omitted.length).toBeLessThan(CHILDREN);
    expect(Object.keys(payload.outputs)).toEqual(keys);
    keys.forEach((key, i) => expect(payload.outputs[key]).toEqual(omitted.includes(key) ? OMITTED_OUTPUT : output(i)));
    expect(omitted).toEqual(keys.slice(CHILDREN - omitted.length));
    // The waiting agent was never cut (as a slow consumer), and got the wake-up once.
    expect(parentStates).not.toContain('disconnected');
    expect(log.of('step_unblocked')).toHaveLength(1);

    // Every output, the omitted ones too, is where the marker says.
    const status = await parent.getPlanStatus({ plan_id: plan.plan_id });
    const merge = status.steps.find((s) => s.description === 'merge the parts');
    expect(merge?.status).toBe('pending');
    expect(merge?.received_outputs).toEqual(Object.fromEntries(keys.map((k, i) => [k, output(i)])));

    // A subscriber resubscribing from before the event is answered and gets it, whole as it was logged.
    const late = await join('late');
    const lateLog = recordEvents(late);
    const lateStates = states(late);
    const answered = await within(
      late.subscribeToTasks({ event_types: ['step_unblocked'], after_event: '0-0' }),
      15_000,
      'never answered',
    );
    expect(answered).not.toBe('never answered');
    const replayed = await within(
      lateLog.next((e) => e.event_type === 'step_unblocked'),
      15_000,
      'never delivered',
    );
    expect(replayed).toEqual(unblocked);
    expect(lateStates).not.toContain('disconnected');
  });

  it('leaves a fan-in under the cap unchanged', async () => {
    await start();
    const parent = await join('parent');
    await startedPlan(parent, 'merge', ['plan the merge']);
    const log = recordEvents(parent);
    await parent.subscribeToTasks({ event_types: ['step_unblocked'] });
    const { agents, refs } = await children(3);
    await parent.addDependentStep({ description: 'merge the parts', depends_on: refs });
    for (const [i, child] of agents.entries())
      await child.completeStepWithOutput({ step_id: 'step_1', output: output(i, 1000) });

    const unblocked = await log.next((e) => e.event_type === 'step_unblocked');
    const keys = refs.map((r) => `${r.agent_id}:step_1`);
    expect(Object.keys(unblocked.payload)).toEqual([
      'received_outputs',
      'outputs',
      'unblocked_by',
      'unblocked_by_agent',
    ]);
    expect(unblocked.payload).toMatchObject({
      received_outputs: keys,
      outputs: Object.fromEntries(keys.map((k, i) => [k, output(i, 1000)])),
    });
  });

  it('announces a step waiting on its own plan, or on steps already ended, without refusing the call', async () => {
    await start();
    const parent = await join('parent');
    const parts = Array.from({ length: 10 }, (_, i) => `part ${i}`);
    const own = await startedPlan(parent, 'own parts', parts);
    // Waiting on its own plan's steps: the call that ends the last one makes the event whole (600 KB of outputs).
    const mine = await parent.addDependentStep({
      description: 'merge my parts',
      depends_on: parts.map((_, i) => ({ agent_id: 'parent', step_id: `step_${i + 1}`, plan_id: own.plan_id })),
    });
    for (const i of parts.keys()) await parent.completeStepWithOutput({ step_id: `step_${i + 1}`, output: output(i) });
    // Its own agent's doing, so not pushed back to it: read from the log.
    const [first, ...more] = await unblocksOf(parent, own.plan_id, mine.step_id);
    expect(more).toEqual([]);
    expect(bytesOf(first as EventEnvelope)).toBeLessThanOrEqual(MAX_EVENT_BYTES);
    expect(omittedOf(first).length).toBeGreaterThan(0);

    // Waiting on steps that all ended already: addDependentStep announces it in its own commit.
    const { agents, refs } = await children(10);
    for (const [i, child] of agents.entries())
      await child.completeStepWithOutput({ step_id: 'step_1', output: output(i) });
    const theirs = await parent.addDependentStep({ description: 'merge theirs', depends_on: refs });
    expect(theirs.status).toBe('pending');
    const [second] = await unblocksOf(parent, own.plan_id, theirs.step_id);
    expect(bytesOf(second as EventEnvelope)).toBeLessThanOrEqual(MAX_EVENT_BYTES);
    expect(omittedOf(second).length).toBeGreaterThan(0);
    // The outputs stay readable in full.
    const status = await parent.getPlanStatus({ plan_id: own.plan_id });
    expect(status.steps.find((s) => s.step_id === theirs.step_id)?.received_outputs).toEqual(
      Object.fromEntries(refs.map((r, i) => [`${r.agent_id}:step_1`, output(i)])),
    );
  });
});
