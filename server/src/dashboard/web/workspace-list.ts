import { isDataLoss } from './call-errors.ts';
import type { Connection } from './connection.ts';
import type { DashboardState } from './state.ts';

export interface WorkspaceListDeps {
  state: DashboardState;
  connection: () => Connection;
  /** The store was found wiped (data-loss.ts): the banner says so, in words for a person. */
  lose: (message: string) => void;
  changed: () => void;
}

/** The workspaces view's list, read each time the view opens. */
export const createWorkspaceList = ({ state, connection, lose, changed }: WorkspaceListDeps) => {
  const list: { names?: string[]; error?: string } = {};
  return {
    list,
    load() {
      // After a loss the server answers DATA_LOSS with its text for agents; the banner has said it for people.
      if (state.storeTrouble?.kind === 'lost') {
        list.error = 'The workspaces cannot be listed: the server’s store lost its data (see the banner at the top).';
        return changed();
      }
      connection()
        .call('listWorkspaces', {})
        .then((r) => {
          list.names = r.workspaces;
          delete list.error;
        })
        .catch((err: unknown) => {
          if (isDataLoss(err)) {
            lose(err.message);
            list.error =
              'The workspaces cannot be listed: the server’s store lost its data (see the banner at the top).';
          } else list.error = err instanceof Error ? err.message : String(err);
        })
        .finally(changed);
    },
  };
};
