import type { ConnectOptions, PlanHubClient } from '@planhub/client-sdk';
import { connect, createClient } from '@planhub/client-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRefusal } from '../helpers/refusals.ts';
import { startHarness, type Harness } from '../helpers/servers.ts';

/** What plain JS can pass where TypeScript would have stopped it. */
const untyped = <T>(value: unknown) => value as T;

describe('mistakes a plain-JS caller of the SDK can make are named in its own terms', () => {
  let h: Harness;
  let client: PlanHubClient;
  beforeAll(async () => {
    h = await startHarness('memory');
    client = await h.client('host');
  });
  afterAll(() => h.close());

  it('tools() with an unknown dialect throws naming the valid ones instead of handing the model no tools', () => {
    let thrown: unknown;
    try {
      client.tools(untyped('999'));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message:
        'tools(): "999" is not a dialect; give one of 000, 001, 002, 003, 004, planhub, or none for every dialect\'s tools.',
    });
    expect(client.tools('004').names.length).toBeGreaterThan(0);
    expect(client.tools().names.length).toBeGreaterThan(client.tools('004').names.length);
  });

  it('connect() without agentId rejects naming agentId, not the wire field agent_id', async () => {
    const options = untyped<ConnectOptions>({ url: h.url, workspace: 'ws', retries: 0 });
    const err = await expectRefusal(connect(options), 'INVALID_ARGUMENT', /connect\(\) needs agentId/);
    expect(err.message).not.toContain('agent_id');
    expect(() => createClient(options)).toThrow(/needs agentId/);
  });
});
