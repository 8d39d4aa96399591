import { isDeepStrictEqual } from 'node:util';
import type { PlanHubServer } from '@planhub/server';
import { createMemoryStore, createServer } from '@planhub/server';
import { CallAckSchema, TOOL_NAMES } from '@planhub/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedAgent, type Seeded } from './support/fixture.ts';
import { openAuth, rawClient, type RawClient } from './support/raw-client.ts';
import { recordingStore, type RecordingStore, type StateSnapshot } from './support/recording-store.ts';
import { IDENTITY, MATRIX, ROLES, expected, outcomeOf, type Outcome } from './support/role-matrix-table.ts';

/**
 * Invariant 6, tool by tool: the owner of some data, another agent, a user and a dashboard each call every tool
 * against the owner's data, first from the owner's workspace ("here"), then from another workspace that knows the
 * same ids and names ("elsewhere"). Every outcome is in the table of support/role-matrix-table.ts; every refusal
 * changes nothing; nobody but the owner (and a user deciding an approval) changes the owner's documents; nothing from
 * the owner's workspace appears in an answer given elsewhere.
 */

let rec: RecordingStore;
let server: PlanHubServer;
let url: string;

beforeAll(async () => {
  rec = recordingStore(createMemoryStore({ eventRetention: 10_000 }));
  server = createServer(
    { port: 0, logLevel: 'silent', approvalPolicy: 'owner-or-user', limits: { callsPerSecond: 100_000 } },
    { store: rec.store },
  );
  ({ url } = await server.listen());
});
afterAll(async () => server.close());

/** The owner's documents: those keyed by its agent id or by one of its plans. */
const ownerDocs = (snap: StateSnapshot, fx: Seeded) =>
  Object.fromEntries(
    Object.entries(snap.docs).filter(
      ([key]) =>
        /(^|:)owner$/.test(key) || (fx.planId !== '' && key.includes(fx.planId)) || key.includes(fx.indexedPlanId),
    ),
  );

let cellCount = 0;

describe('role × tool matrix (policy owner-or-user)', () => {
  it('has a row for every tool of the catalog', () => {
    const missing = TOOL_NAMES.filter((t) => MATRIX[t] === undefined);
    expect(missing, `add rows to the security matrix for: ${missing.join(', ')}`).toEqual([]);
  });

  describe.concurrent.each(TOOL_NAMES.map((t) => [t]))('%s', (tool) => {
    it.each(ROLES.map((r) => [r]))('as %s, here and from another workspace', async (role) => {
      const row = MATRIX[tool];
      if (!row) throw new Error(`no matrix row for ${tool}`);
      const index = ROLES.indexOf(role);
      const cell = `${tool}-${role}`;
      const [home, away] = [`m-${cell}`, `x-${cell}`];
      const marker = `MARK${Math.random().toString(36).slice(2, 10)}`;
      const identity = IDENTITY[role];
      const owner = await rawClient(url, openAuth(home, 'owner'));
      const clients: RawClient[] = [owner];
      try {
        const fx = await seedAgent(owner, marker, row.seed);
        const caller = role === 'owner' ? owner : await rawClient(url, openAuth(home, identity.agent, identity.role));
        if (caller !== owner) clients.push(caller);
        const stranger = await rawClient(url, openAuth(away, identity.agent, identity.role));
        clients.push(stranger);

        // Here: the owner's workspace.
        const before = await rec.snapshot(home);
        const ack = await caller.call(tool, row.args(fx));
        expect(CallAckSchema.safeParse(ack).success).toBe(true);
        expect(outcomeOf(ack), JSON.stringify(ack).slice(0, 400)).toBe(expected(row.here[index] as Outcome));
        const after = await rec.snapshot(home);
        if (!ack.ok) {
          expect(after).toEqual(before);
          if (ack.error.code === 'PERMISSION_DENIED') expect(ack.error.message).toMatch(/\b(only|read-only)\b/);
        } else if (role !== 'owner' && !(row.userDecides && role === 'user')) {
          expect(isDeepStrictEqual(ownerDocs(after, fx), ownerDocs(before, fx)), `${role} changed owner data`).toBe(
            true,
          );
        }

        // Elsewhere: the same call, ids and names from another workspace.
        const homeBefore = await rec.snapshot(home);
        const awayBefore = await rec.snapshot(away);
        const far = await stranger.call(tool, row.args(fx));
        expect(CallAckSchema.safeParse(far).success).toBe(true);
        expect(outcomeOf(far), JSON.stringify(far).slice(0, 400)).toBe(expected(row.elsewhere[index] as Outcome));
        expect(JSON.stringify(far)).not.toContain(marker);
        expect(await rec.snapshot(home)).toEqual(homeBefore);
        if (!far.ok) expect(await rec.snapshot(away)).toEqual(awayBefore);
        cellCount += 2;
      } finally {
        for (const c of clients) c.close();
      }
    });
  });

  afterAll(() => {
    // 2 outcomes (here, elsewhere) per role per tool, all asserted.
    expect(cellCount).toBe(TOOL_NAMES.length * ROLES.length * 2);
  });
});
