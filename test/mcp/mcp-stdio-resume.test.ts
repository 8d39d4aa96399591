import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { connect } from '@planhub/client-sdk';
import { createMemoryStore, createServer, type PlanHubServer } from '@planhub/server';
import type { EventEnvelope } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { callJson, mcpClient } from './mcp-clients.ts';

interface Waited {
  events: EventEnvelope[];
  last_event_id: string;
}

const WORKSPACE = 'team';

/** What the parent is told of, in a form that says which step of whom. */
const described = (answer: Waited) => answer.events.map((e) => `${e.event_type} ${e.source_agent}:${e.source_step_id}`);

/**
 * One node that dies and comes back on the same port with the same store (a restart forgets every MCP session), a
 * parent behind the `planhub mcp` bridge, and a subagent on the socket SDK that may act while the node is restarted.
 */
const restartingNode = () => {
  let store: ReturnType<typeof createMemoryStore> | undefined;
  let node: PlanHubServer | undefined;
  let url = '';
  const clients: Client[] = [];
  const life = async () => {
    const port = url === '' ? 0 : Number(new URL(url).port);
    node = createServer({ port, logLevel: 'silent', approvalPolicy: 'auto' }, store ? { store } : {});
    url = (await node.listen()).url;
  };
  const scene = {
    start: async () => {
      store = createMemoryStore({ eventRetention: 1000 });
      url = '';
      await life();
      const parent = await mcpClient('stdio', url, { workspace: WORKSPACE, agentId: 'parent' });
      clients.push(parent);
      let stderr = '';
      (parent.transport as StdioClientTransport).stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      return { parent, stderr: () => stderr };
    },
    restart: async () => {
      await node?.close();
      await life();
    },
    /** The subagent does `work` through a socket connection of its own to the node as it is now. */
    subagent: async (work: (sub: Awaited<ReturnType<typeof connect>>) => Promise<unknown>) => {
      const sub = await connect({ url, agentId: 'sub', workspace: WORKSPACE });
      try {
        await work(sub);
      } finally {
        sub.close();
      }
    },
  };
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await node?.close();
    await store?.close();
    store = undefined;
  });
  return scene;
};

/**
 * The bridge re-opens a session the node no longer knows by itself; the new session's cursor must continue where the
 * old one stopped. It used to start at the end of the log, so what was committed while the node was down (the
 * step_unblocked a parent waits for) never came out of waitForEvents.
 */
describe('planhub mcp: events across a session the bridge re-opened', () => {
  const scene = restartingNode();

  /** The parent's plan waits on the subagent's step_2; the subagent's plan runs. */
  const fanIn = async (parent: Client) => {
    await scene.subagent(async (sub) => {
      await sub.createPlan({ title: 'Research', steps: ['Find', 'Report'] });
      await sub.startPlan({});
    });
    await callJson(parent, 'createPlan', { title: 'Merge', steps: ['Spawn'] });
    await callJson(parent, 'startPlan', {});
    const merge = await callJson<{ step_id: string }>(parent, 'addDependentStep', {
      description: 'Merge the report',
      depends_on: [{ agent_id: 'sub', step_id: 'step_2' }],
    });
    return merge.step_id;
  };

  it('hands the next waitForEvents exactly what was committed while the node restarted', async () => {
    const { parent, stderr } = await scene.start();
    const merge = await fanIn(parent);
    await callJson(parent, 'subscribeToTasks', { event_types: ['step_completed', 'step_unblocked'] });
    await scene.subagent((sub) => sub.completeStepWithOutput({ step_id: 'step_1', output: { found: 1 } }));
    const before = await callJson<Waited>(parent, 'waitForEvents', { timeout: 5 });
    // The decision on its own plan comes without a subscription: it must not come again either.
    expect(described(before)).toEqual([expect.stringMatching(/^plan_approved /), 'step_completed sub:step_1']);

    await scene.restart();
    await scene.subagent((sub) => sub.completeStepWithOutput({ step_id: 'step_2', output: { report: 'done' } }));

    const after = await callJson<Waited>(parent, 'waitForEvents', { timeout: 5 });
    expect(described(after)).toEqual(['step_completed sub:step_2', `step_unblocked parent:${merge}`]);
    expect(stderr()).toContain('the node had ended the MCP session; opened a new one');
    expect((await callJson<Waited>(parent, 'waitForEvents', { timeout: 0 })).events).toEqual([]);
  });

  it('continues from the subscription when no wait came before, past the calls that noticed the restart', async () => {
    const { parent } = await scene.start();
    const merge = await fanIn(parent);
    await callJson(parent, 'subscribeToTasks', { event_types: ['step_unblocked'] });

    await scene.restart();
    await scene.subagent(async (sub) => {
      await sub.completeStepWithOutput({ step_id: 'step_1', output: {} });
      await sub.completeStepWithOutput({ step_id: 'step_2', output: { report: 'done' } });
    });

    // A host that re-subscribes first: that answer names the new session's cursor, which must not be taken for it.
    await callJson(parent, 'getPlanStatus', {});
    await callJson(parent, 'subscribeToTasks', { event_types: ['step_unblocked'] });
    // Its plan's approval came after the old session opened, so that session had it waiting too.
    const after = await callJson<Waited>(parent, 'waitForEvents', { timeout: 5 });
    expect(described(after)).toEqual([expect.stringMatching(/^plan_approved /), `step_unblocked parent:${merge}`]);
  });

  it('continues from where the old session opened when no wait or subscription of it had answered', async () => {
    const { parent, stderr } = await scene.start();
    const merge = await fanIn(parent);

    await scene.restart();
    await scene.subagent(async (sub) => {
      await sub.completeStepWithOutput({ step_id: 'step_1', output: {} });
      await sub.completeStepWithOutput({ step_id: 'step_2', output: { report: 'done' } });
    });

    await callJson(parent, 'subscribeToTasks', { event_types: ['step_unblocked'] });
    const after = await callJson<Waited>(parent, 'waitForEvents', { timeout: 5 });
    expect(described(after)).toEqual([expect.stringMatching(/^plan_approved /), `step_unblocked parent:${merge}`]);
    expect(stderr()).toMatch(/its next waitForEvents continues after event \S+, where the old one stopped/);
  });
});
