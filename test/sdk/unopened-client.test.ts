import { PlanHubError, createClient } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';

/**
 * createClient() dials nothing until open(). A tool called before it waited out every retry (about 140 s) and ended
 * DEADLINE_EXCEEDED "retryable", while a node was there all along.
 */
describe('a tool called on a client that was never opened', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('fails at once with FAILED_PRECONDITION saying to call open(), and works once opened', async () => {
    h = await startHarness('memory');
    const client = createClient({ url: h.url, agentId: 'early', workspace: 'ws' });
    try {
      const started = Date.now();
      const error = await client.listTools({}, { timeoutMs: 2000 }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(PlanHubError);
      expect(error).toMatchObject({
        code: 'FAILED_PRECONDITION',
        retryable: false,
        message: 'listTools: the client is not open; call open() on it first (connect() opens the client it returns).',
      });
      expect(Date.now() - started).toBeLessThan(1000);
      // A call made right after open(), before it resolves, waits for the connection.
      const opening = client.open();
      const tools = client.listTools({});
      await opening;
      expect(await tools).toBeTruthy();
    } finally {
      client.close();
    }
  });
});
