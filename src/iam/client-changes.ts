// client_credentials is checked against a kept copy of the client, and its grant is stored only if
// the client's row is still what was read (src/iam/issue-records.ts). When either finds the client
// changed, the request is tried again on a fresh read. A row that changes again between the fresh read
// and the insert (an admin rotating a secret while a script re-enables the client, say) is read again,
// a few times; a request that still meets a changed row is asked to retry, never answered 500.
import { OAuthError } from '../platform/errors.ts';

/** Fresh reads one request makes when the client's row keeps changing under it. */
export const FRESH_READS = 3;

/** A kept copy of the client refused the request, or its row changed before the grant's insert. */
export class ClientChanged extends Error {
  readonly clientId: string;

  constructor(clientId: string) {
    super('The client changed while its token was issued.');
    this.clientId = clientId;
  }
}

/**
 * Runs `attempt` on the kept copy (`fresh` false), then on up to FRESH_READS fresh reads while it
 * throws ClientChanged, calling `forget` with the client each time; then 503 with Retry-After.
 */
export async function despiteClientChanges<T>(attempt: (fresh: boolean) => Promise<T>, forget: (clientId: string) => void): Promise<T> {
  for (let reads = 0; ; reads++) {
    try {
      return await attempt(reads > 0);
    } catch (error) {
      if (!(error instanceof ClientChanged)) throw error;
      if (reads === FRESH_READS) throw new OAuthError(503, 'server_error', 'The client changed while its token was issued; retry.', { 'Retry-After': '1' });
      forget(error.clientId);
    }
  }
}
