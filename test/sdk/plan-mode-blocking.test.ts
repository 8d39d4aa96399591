import type { CallTool, ToolResult } from '@planhub/client-sdk';
import { llmMethods, planModeBlockedMessage } from '@planhub/client-sdk';
import { describe, expect, it } from 'vitest';

type Mode = ToolResult<'plan_status'>['mode'];

/** The LLM helpers over a server whose plan_status answers as PlanHub's does in `mode`. */
const helpersIn = (mode: Mode) => {
  const status: ToolResult<'plan_status'> = {
    agent_id: 'main',
    mode,
    blocked_tools: mode === 'plan' ? ['write_file', 'cron_create', 'cron_delete'] : [],
  };
  const call = ((tool: string) =>
    tool === 'plan_status'
      ? Promise.resolve(status)
      : Promise.reject(new Error(`unexpected call of ${tool}`))) as unknown as CallTool;
  return llmMethods(call);
};

describe("seed 002's tool blocking in the SDK, as upstream blocks", () => {
  it("blocks upstream's cron when its action creates or deletes, only while exploring in plan mode", async () => {
    const exploring = helpersIn('plan');
    expect(await exploring.isToolBlocked('cron', { action: 'create', schedule: '0 * * * *' })).toBe(true);
    expect(await exploring.isToolBlocked('cron', { action: 'delete', id: 'job-1' })).toBe(true);
    // The JSON string a model API hands over is read too.
    expect(await exploring.isToolBlocked('cron', '{"action":"delete","id":"job-1"}')).toBe(true);
    expect(await exploring.isToolBlocked('cron', { action: 'list' })).toBe(false);
    expect(await exploring.isToolBlocked('cron', {})).toBe(false);
    expect(await exploring.isToolBlocked('cron')).toBe(false);
    expect(await exploring.isToolBlocked('read_file', { action: 'create' })).toBe(false);
    for (const mode of ['normal', 'awaiting_approval', 'executing'] as const)
      expect(await helpersIn(mode).isToolBlocked('cron', { action: 'create' }), mode).toBe(false);
  });

  it("keeps the seed's names and the one-argument call as they were", async () => {
    const exploring = helpersIn('plan');
    for (const name of ['write_file', 'cron_create', 'cron_delete'])
      expect(await exploring.isToolBlocked(name), name).toBe(true);
    expect(await exploring.isToolBlocked('write_file', { path: 'a.ts', content: 'x' })).toBe(true);
    expect(await exploring.isToolBlocked('read_file')).toBe(false);
    expect(await helpersIn('awaiting_approval').isToolBlocked('write_file')).toBe(false);
  });

  it("answers a blocked call with upstream's refusal text, and nothing for a call that may run", async () => {
    const exploring = helpersIn('plan');
    expect(await exploring.blockedToolResult('write_file', { path: 'a.ts' })).toBe(
      'Tool "write_file" is blocked in plan mode. Use plan_manage(action: "exit") to present your implementation ' +
        'plan first.',
    );
    expect(await exploring.blockedToolResult('cron', { action: 'create' })).toBe(
      'Tool "cron" is blocked in plan mode. Use plan_manage(action: "exit") to present your implementation plan first.',
    );
    expect(await exploring.blockedToolResult('cron', { action: 'list' })).toBeUndefined();
    expect(await helpersIn('normal').blockedToolResult('write_file')).toBeUndefined();
    expect(planModeBlockedMessage('cron_delete')).toMatch(/^Tool "cron_delete" is blocked in plan mode\./);
  });
});
