import type { Sequelize, Transaction } from 'sequelize';
import { runInTransactionScope } from './transaction-scope.js';

/**
 * A database transaction as services see it: an opaque handle they pass, as the last argument, to
 * every repository method that must take part. Services never import sequelize themselves.
 */
export type Tx = Transaction;

/** Runs work in one transaction: committed when it resolves, rolled back when it throws. */
export interface Transactions {
  run<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
}

export function sequelizeTransactions(sequelize: Sequelize): Transactions {
  // The scope lets the network layer refuse calls made while the transaction is open (transaction-scope.ts).
  return {
    run: (work) =>
      runInTransactionScope((close) =>
        sequelize.transaction((tx) => {
          tx.afterCommit(close);
          return work(tx);
        }),
      ),
  };
}

/**
 * Runs work in the caller's transaction when there is one (it commits or rolls back with the rest of
 * the caller's work), else in a transaction of its own.
 */
export function inTransaction<T>(transactions: Transactions, outer: Tx | undefined, work: (tx: Tx) => Promise<T>): Promise<T> {
  return outer ? work(outer) : transactions.run(work);
}
