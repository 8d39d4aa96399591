import { describe, expect, it } from 'vitest';
import { createMemoryRevocations } from '../src/store/revocations/revocations.ts';

describe('revocation listeners', () => {
  it('tells every listener of a revocation, though one of them throws', async () => {
    const errors: unknown[] = [];
    const revocations = createMemoryRevocations((err) => errors.push(err));
    const told: string[] = [];
    revocations.onRevoked(() => {
      throw new Error('listener broke');
    });
    revocations.onRevoked((jti) => told.push(jti));

    await revocations.revoke('jti-1', Math.floor(Date.now() / 1000) + 60);
    expect(told).toEqual(['jti-1']);
    expect(errors).toEqual([new Error('listener broke')]);
    expect(await revocations.isRevoked('jti-1')).toBe(true);
  });
});
