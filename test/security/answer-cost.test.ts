import { describe, expect, it } from 'vitest';
import { callRaw, mcpClient, refusalOf } from '../mcp/mcp-clients.ts';
import { serverFixture } from './support/server-fixture.ts';

/** 80 units per agent per 10 s window. */
const LIMITS = { callsPerSecond: 8, rateWindowSeconds: 10 } as const;
/** 100 steps of 4,000 characters: a plan whose status answer is about 400 KB (6 units at 64 KiB a unit). */
const STEPS = Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(4_000, '.'));

type Ack = { ok: boolean; error?: { code: string; message: string } };

/**
 * A call pays for the answer it gets, as it pays for the frame it sends: a small frame asking for a large answer
 * (a 3.6 MB plan's status, a 29 MB workspace) used to cost one unit, and a quarter of an agent's call rate of them
 * held a node at 80–87 % CPU while another workspace's p99 went from 15 ms to 214–381 ms.
 */
describe('what an answer costs its caller', () => {
  const { node, join } = serverFixture({ limits: LIMITS, approvalPolicy: 'auto' });

  it('charges large answers by their bytes, over a socket', async () => {
    const url = await node();
    const owner = await join(url, 'ws', 'reader');
    expect(await owner.call('createPlan', { title: 'Big', steps: STEPS })).toMatchObject({ ok: true });
    // createPlan's frame (25 units, at 16 KiB a unit), answer (6) and documents written (23: 4 a unit past 8), then each
    // status: 1 for the call, 6 for its answer. Charged by the frame alone, five of them fit the window.
    const answers: string[] = [];
    for (let i = 0; i < 5; i++) {
      const ack = (await owner.call('getPlanStatus', {})) as Ack;
      answers.push(ack.ok ? 'ok' : `${ack.error?.code}: ${ack.error?.message.slice(0, 24)}`);
    }
    expect(answers[0]).toBe('ok');
    expect(answers.at(-1)).toMatch(/^RESOURCE_EXHAUSTED: Too many calls/);
    // Another agent of the workspace keeps its own budget.
    const other = await join(url, 'ws', 'bystander');
    expect(await other.call('getWorkspace', {})).toMatchObject({ ok: true });
  });

  it('charges large answers by their bytes, over MCP', async () => {
    const url = await node();
    const owner = await join(url, 'ws', 'mcp-reader');
    expect(await owner.call('createPlan', { title: 'Big', steps: STEPS })).toMatchObject({ ok: true });
    owner.close();
    const mcp = await mcpClient('http', url, { workspace: 'ws', agentId: 'mcp-reader' });
    try {
      const texts: string[] = [];
      for (let i = 0; i < 5; i++) {
        const result = await callRaw(mcp, 'getPlanStatus');
        texts.push(result.isError === true ? refusalOf(result).slice(0, 40) : 'ok');
      }
      expect(texts[0]).toBe('ok');
      expect(texts.at(-1)).toMatch(/^RESOURCE_EXHAUSTED: Too many calls/);
    } finally {
      await mcp.close();
    }
  });
});
