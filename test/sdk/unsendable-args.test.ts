import { CALLS_IN_FLIGHT_PER_CONNECTION, PlanHubError } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { rawSocket } from '../helpers/raw-socket.ts';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { CloseWatch } from '../../client-sdk/src/close-watch.ts';
import { emitCall } from '../../client-sdk/src/emit-call.ts';

/**
 * Arguments that cannot be sent as JSON (a circular object, a BigInt) are the caller's input: INVALID_ARGUMENT saying
 * where they are, at once. They used to reject INTERNAL ("Maximum call stack size exceeded") from inside
 * socket.emit, each keeping one of the client's 96 places on the wire for good: after 96 of them every call waited
 * and timed out.
 */
describe('a call whose arguments cannot be sent', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('is refused INVALID_ARGUMENT naming what, and keeps no place on the wire', async () => {
    h = await startHarness('memory', { limits: { callsPerSecond: 10_000 } });
    const agent = await h.client('careless');
    const circular: Record<string, unknown> = { plan_id: 'p', nested: [{}] };
    (circular.nested as object[])[0] = { back: circular };
    for (let i = 0; i < CALLS_IN_FLIGHT_PER_CONNECTION + 4; i++) {
      const error = await agent.getPlanStatus(circular as { plan_id: string }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(PlanHubError);
      expect(error).toMatchObject({
        code: 'INVALID_ARGUMENT',
        retryable: false,
        message:
          'The arguments of getPlanStatus cannot be sent as JSON: args.nested[0].back is args itself (a circular ' +
          'reference): pass plain data without the loop.',
      });
    }
    await expect(agent.getPlanStatus({ plan_id: 'p' }, { timeoutMs: 3000 })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await agent.listTools({}, { timeoutMs: 3000 })).toBeTruthy();
  });

  it('names a BigInt, and answers the same through execute()', async () => {
    h = await startHarness('memory');
    const agent = await h.client('careless');
    await expect(agent.createPlan({ title: 't', steps: ['s'], budget: 10n } as never)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message:
        'The arguments of createPlan cannot be sent as JSON: args.budget is a BigInt (10n), which JSON cannot ' +
        'carry: pass a number or a string.',
    });
    // A Date goes out as its toJSON string, as JSON sends it.
    await expect(agent.createPlan({ title: new Date(0) as never, steps: ['s'] })).resolves.toBeTruthy();
    const native = await agent.execute('getPlanStatus', { plan_id: 'p', n: 1n });
    expect(JSON.stringify(native)).toContain('args.n is a BigInt (1n)');
  });

  it('frees its place even when the encoder throws what the client could not tell first', async () => {
    h = await startHarness('memory');
    const socket = await rawSocket(h.url, 'raw');
    const watch = new CloseWatch(new AbortController().signal);
    let freed = 0;
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    const sent = emitCall(socket, { tool: 'listTools', args: loop }, 1000, Date.now() + 1000, watch, () => {
      freed += 1;
    });
    await expect(sent).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(freed).toBe(1);
    socket.disconnect();
  });
});
