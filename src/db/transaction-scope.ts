import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Knows whether the code running now is inside an open database transaction, so that the network
 * layer can refuse to talk to another server while one is held (the house rule "no network call
 * inside a database transaction": a slow mail server would hold row locks and a pool connection for
 * up to its timeout, and a rollback cannot take back what the other server did).
 *
 * The flag is a mutable box: it is cleared the moment the transaction commits (before its
 * afterCommit hooks run) or rolls back, so work started from a hook is outside again.
 */
interface Scope {
  open: boolean;
}

const storage = new AsyncLocalStorage<Scope>();

export function runInTransactionScope<T>(work: (close: () => void) => Promise<T>): Promise<T> {
  const scope: Scope = { open: true };
  const close = () => {
    scope.open = false;
  };
  return storage.run(scope, () => work(close).finally(close));
}

export function transactionOpen(): boolean {
  return storage.getStore()?.open === true;
}

/** A programming error: the caller must do its network call before (or after) the transaction. */
export class NetworkInTransactionError extends Error {
  constructor(what: string) {
    super(`${what} while a database transaction is open: do the network call before the transaction, or after it commits`);
    this.name = 'NetworkInTransactionError';
  }
}

/** Called by every outgoing network request (the JMAP client): throws inside a transaction. */
export function assertNoOpenTransaction(what: string): void {
  if (transactionOpen()) throw new NetworkInTransactionError(what);
}
