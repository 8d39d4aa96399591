import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createFileStore } from '../src/store/file/file-store.ts';
import { createMemoryRevocations, type Revocations } from '../src/store/revocations/revocations.ts';

/** Two listeners, the first of which throws: what the second is told. */
const brokenThenTold = (revocations: Revocations): string[] => {
  const told: string[] = [];
  revocations.onRevoked(() => {
    throw new Error('listener broke');
  });
  revocations.onRevoked((jti) => told.push(jti));
  return told;
};

describe('revocation listeners', () => {
  it('tells every listener of a revocation, though one of them throws', async () => {
    const errors: unknown[] = [];
    const revocations = createMemoryRevocations((err) => errors.push(err));
    const told = brokenThenTold(revocations);

    await revocations.revoke('jti-1', Math.floor(Date.now() / 1000) + 60);
    expect(told).toEqual(['jti-1']);
    expect(errors).toEqual([new Error('listener broke')]);
    expect(await revocations.isRevoked('jti-1')).toBe(true);
  });
});

describe('revocation listeners of the file store', () => {
  it('tells every listener, logs the one that throws, and still answers the revoke', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'planhub-revocations-'));
    const store = createFileStore({ path: dir, eventRetention: 100 });
    const logged: { msg: string; err?: { message?: string } }[] = [];
    const log = pino({ level: 'error' }, { write: (line: string) => void logged.push(JSON.parse(line) as never) });
    const revocations = store.revocations({ checkMs: 1000, log });
    try {
      const told = brokenThenTold(revocations);

      await revocations.revoke('jti-1', Math.floor(Date.now() / 1000) + 60);
      expect(told).toEqual(['jti-1']);
      expect(logged.map((l) => [l.msg, l.err?.message])).toEqual([['revocation listener failed', 'listener broke']]);
      expect(await revocations.isRevoked('jti-1')).toBe(true);
    } finally {
      revocations.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
