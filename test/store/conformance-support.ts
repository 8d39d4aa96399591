import type { EventEnvelope, NewEvent } from '@planhub/shared';
import type { Store } from '@planhub/server';
import { test } from 'vitest';
import { storeFixture, type StoreFixture, type StoreFixtureKind } from '../helpers/stores.ts';

/** Shared by the store conformance suites (documents and requests; the event log). */
export const WS = 'ws-a';

export const event = (n: number, workspace = WS): NewEvent => ({
  event_type: 'step_added',
  timestamp: new Date(1_700_000_000_000 + n).toISOString(),
  workspace,
  source_agent: 'agent-1',
  source_plan_id: 'plan0001',
  source_plan_title: 'Title with "quotes", ünïcode and a\nnewline',
  source_step_id: `step_${n}`,
  source_step_description: null,
  source_step_sequence: n,
  payload: { n, nested: { list: [1, 'two', null] } },
});

/** Commits with no reads: always applies. */
export const append = async (store: Store, events: NewEvent[], workspace = WS) => {
  const outcome = await store.commit(workspace, { reads: [], writes: [], events });
  if (!outcome.ok) throw new Error('append conflicted');
  return outcome.events;
};

export const collect = (store: Store, workspace = WS) => {
  const seen: EventEnvelope[] = [];
  const off = store.watch(workspace, (e) => seen.push(e));
  return { seen, off };
};

/**
 * `it` of the suites of one store kind: each test gets a fresh `store`, and its `fixture` to open more stores (for
 * Redis, more nodes on the same data); both are closed, and the Redis keys deleted, after the test.
 */
export const storeTest = (kind: StoreFixtureKind) =>
  test.extend<{ fixture: StoreFixture; store: Store }>({
    // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's own dependencies from this pattern
    fixture: async ({}, use) => {
      const fixture = storeFixture(kind);
      await use(fixture);
      await fixture.close();
    },
    store: async ({ fixture }, use) => use(fixture.open()),
  });
