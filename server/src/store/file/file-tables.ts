import type { RootDatabase } from 'lmdb';
import type { Table, Tables } from './file-state.ts';

/** The store's named databases in one LMDB environment (one commit writes several of them in one transaction). */
export const openTables = (root: RootDatabase): Tables & { revoked: Table; presence: Table; format: Table } => {
  const table = (name: string) => root.openDB({ name, encoding: 'string' }) as unknown as Table;
  return {
    docs: table('docs'),
    sets: table('sets'),
    hashes: table('hashes'),
    counters: table('counters'),
    zsets: table('zsets'),
    events: table('events'),
    requests: table('requests'),
    expiries: table('request-expiries'),
    requestOrder: table('request-order'),
    meta: table('meta'),
    revoked: table('revoked'),
    presence: table('presence'),
    /** Which key format the store is in (key-format.ts). */
    format: table('format'),
  };
};
