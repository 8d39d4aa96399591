import { entryKey } from './file-keys.ts';
import { listeners, type Revocations } from '../revocations/revocations.ts';
import type { Table } from './file-state.ts';

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * Revoked token ids kept in the store's own file, so a revocation outlives a restart of the node as the state
 * does. Each entry lives until the token's own expiry; expired ones are dropped when another token is revoked.
 */
export const createFileRevocations = (
  table: Table,
  write: (fn: () => void) => Promise<unknown>,
  onError: (err: unknown) => void = () => undefined,
): Revocations => {
  // One that throws must neither keep the others from being told nor fail a revoke that is already written.
  const told = listeners(onError);
  const revoked = (jti: string) => Number(table.get(entryKey('revoked', jti)) ?? -1) >= nowSeconds();
  return {
    async revoke(jti, expSeconds) {
      const now = nowSeconds();
      await write(() => {
        for (const { key, value } of [...table.getRange({})]) if (Number(value) < now) table.remove(key as string);
        table.put(entryKey('revoked', jti), String(expSeconds));
      });
      told.tell(jti);
    },
    isRevoked: (jti) => Promise.resolve(revoked(jti)),
    announced: revoked,
    onRevoked: told.add,
    close: () => told.clear(),
  };
};
