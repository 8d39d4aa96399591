import { EVENT_TYPES } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { isFollowing, startCli } from './cli-process.ts';

describe('each planhub reader process follows with its own identity', () => {
  let h: Harness;
  const stops: (() => void)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) stop();
    await h.close();
  });

  it('planhub events -f --type step_failed prints only step_failed, whatever subscriptions an earlier CLI process left behind', async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    // What a `planhub watch` leaves when it dies without unsubscribing (SIGKILL, a closed terminal): a subscription to
    // everything, stored for the agent the CLI connected as.
    const leftover = await h.client('planhub-cli', { role: 'user' });
    await leftover.subscribeToTasks({ agent_id: '*', event_types: [...EVENT_TYPES] });
    leftover.close();
    const main = await h.client('main');
    await main.createPlan({ title: 'Fails twice', steps: ['first', 'second'] });
    await main.startPlan({});
    await main.setStepStatus({ step_id: 'step_1', status: 'failed' });

    const follow = startCli(['events', '--follow', '--type', 'step_failed', '--url', h.url, '--workspace', 'ws']);
    stops.push(follow.stop);
    await eventually(() => expect(follow.output()).toContain('main/step_1'));
    await (await h.client('other')).createPlan({ title: 'Not asked for', steps: ['x'] });
    await main.setStepStatus({ step_id: 'step_2', status: 'failed' });
    // Events arrive in order: once the later step_failed is printed, a plan_created would have been printed before it.
    await eventually(() => expect(follow.output()).toContain('main/step_2'));
    const lines = follow.output().trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines.every((l) => l.includes('step_failed'))).toBe(true);
    expect(follow.output()).not.toContain('plan_created');
  });

  it('planhub events -f --as <id> follows as that id, and on SIGHUP (its terminal closed) unsubscribes and exits 0', async () => {
    h = await startHarness('memory');
    const reader = await h.client('hup-reader', { role: 'user' });
    const follow = startCli(['events', '--follow', '--as', 'hup-reader', '--url', h.url, '--workspace', 'ws']);
    stops.push(follow.stop);
    await eventually(async () => expect((await reader.listSubscriptions({})).subscriptions).toHaveLength(1));
    // Stored is not yet followed: the answer may still be on its way back, and SIGHUP is handled only from then on.
    await eventually(() => expect(isFollowing(follow.child.pid!)).toBe(true));
    follow.child.kill('SIGHUP');
    expect(await follow.exited).toMatchObject({ code: 0, signal: null });
    expect((await reader.listSubscriptions({})).subscriptions).toEqual([]);
  });
});
