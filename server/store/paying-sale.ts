import { type RawBuilder, sql, type SqlBool } from 'kysely';

// domain/sales.ts paysItsTransaction as a condition over a row of `sales` named `alias`, for
// the read side's queries that filter or sum many transactions' sales at once (the payments
// list and its filters, the customers' lifetime values): one definition of "the sale moved
// money for its transaction" in SQL, beside the one in the domain.

export const paysItsTransactionSql = (alias: string): RawBuilder<SqlBool> =>
  sql<SqlBool>`(${sql.ref(`${alias}.failure`)} is null and ${sql.ref(`${alias}.late_for_transaction_id`)} is null)`;
