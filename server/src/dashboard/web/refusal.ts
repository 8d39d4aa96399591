import type { ConnectRefusal } from '@planhub/shared';
import { tokenRequiredOf } from '@planhub/shared';

/**
 * What the page says when a server turns its handshake down for good, from the connect_error's `data` and message.
 * The server's own text is written for whoever codes an agent ("connect with auth: { token } … --role agent"); a
 * person at the dashboard needs to know which link to open instead.
 */
export const refusalText = (
  refusal: Partial<ConnectRefusal> | undefined,
  serverMessage: string,
  hadToken: boolean,
): string => {
  if (refusal?.code !== 'UNAUTHENTICATED') return serverMessage;
  if (hadToken)
    return (
      'this link’s sign-in token was not accepted (it expired, was revoked, lasts longer than this server allows, or ' +
      'was made for another server). Open the dashboard link you were given again, or ask for a fresh one: ' +
      '…/dashboard#token=…'
    );
  // Open mode refuses a malformed name with a message about the query, which is what the person has to fix. The
  // field, not the words: the server may reword its message.
  if (!tokenRequiredOf(refusal)) return serverMessage;
  return (
    'this server needs a sign-in token. Open the dashboard link you were given (…/dashboard#token=…), or ask ' +
    'whoever runs PlanHub for one.'
  );
};
