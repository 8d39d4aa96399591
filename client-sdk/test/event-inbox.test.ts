import type { TaskEvent } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { EventInbox } from '../src/event-inbox.ts';

const event = (ms: number, type = 'plan_created'): TaskEvent =>
  ({ event_id: `${ms}-0`, event_type: type }) as TaskEvent;

const inbox = (limit?: number) => {
  const handed: string[] = [];
  const dropped: number[] = [];
  const box = new EventInbox(
    (e) => handed.push(`${e.event_type}@${e.event_id}`),
    (n) => dropped.push(n),
    limit,
  );
  return { box, handed, dropped };
};

const tick = () => new Promise<void>((resolve) => queueMicrotask(resolve));

describe('the SDK inbox', () => {
  it('holds events until a listener of their type attaches, then hands them over in order', async () => {
    const { box, handed } = inbox();
    box.accept(event(1, 'plan_created'));
    box.accept(event(2, 'step_completed'));
    box.attach('step_completed', () => undefined);
    expect(handed).toEqual([]);
    await tick();
    expect(handed).toEqual(['step_completed@2-0']);
    box.accept(event(3, 'step_completed'));
    box.attach(undefined, () => undefined);
    await tick();
    expect(handed).toEqual(['step_completed@2-0', 'step_completed@3-0', 'plan_created@1-0']);
    expect(box.heldCount).toBe(0);
  });

  it('drops duplicates and keeps its cursor at the newest accepted event', () => {
    const { box, handed } = inbox();
    box.attach(undefined, () => undefined);
    box.startAt('1-0');
    box.accept(event(1));
    box.accept(event(2));
    box.startAt('9-0');
    box.accept(event(2));
    expect(handed).toEqual(['plan_created@2-0']);
    expect(box.lastEventId).toBe('2-0');
  });

  it('holds at most its limit, says so once, and forgets a detached listener', async () => {
    const { box, handed, dropped } = inbox(2);
    const detach = box.attach('step_failed', () => undefined);
    detach();
    detach();
    for (let i = 1; i <= 5; i++) box.accept(event(i, 'step_failed'));
    expect(dropped).toEqual([1]);
    expect(box.heldCount).toBe(2);
    box.attach('step_failed', () => undefined);
    await tick();
    expect(handed).toEqual(['step_failed@4-0', 'step_failed@5-0']);
  });
});
