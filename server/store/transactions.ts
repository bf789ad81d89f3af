import { type Db, inTransaction } from './db';
import { countAndPage, type Page } from './paging';
import type { TransactionLineRow, TransactionRow } from './schema';

export interface StoredTransaction {
  row: TransactionRow;
  lines: TransactionLineRow[];
}

/** The transaction and its lines in one database transaction: both or neither. */
export async function insertTransaction(db: Db, tx: StoredTransaction): Promise<void> {
  await inTransaction(db, async (trx) => {
    await trx.insertInto('transactions').values(tx.row).execute();
    // Chunked: SQLite caps bound parameters per statement (10 columns × 90 rows fits).
    for (let i = 0; i < tx.lines.length; i += 90) {
      await trx.insertInto('transaction_lines').values(tx.lines.slice(i, i + 90)).execute();
    }
  });
}

async function withLines(db: Db, row: TransactionRow | undefined): Promise<StoredTransaction | undefined> {
  if (!row) return undefined;
  const lines = await db
    .selectFrom('transaction_lines')
    .selectAll()
    .where('transaction_id', '=', row.id)
    .orderBy('position')
    .execute();
  return { row, lines };
}

export async function getTransaction(db: Db, environmentId: string, id: string) {
  const row = await db
    .selectFrom('transactions')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
  return withLines(db, row);
}

export async function getTransactionByToken(db: Db, token: string) {
  const row = await db.selectFrom('transactions').selectAll().where('token', '=', token).executeTakeFirst();
  return withLines(db, row);
}

export interface TransactionFilters {
  status?: string;
  order_id?: string;
  currency?: string;
  /** `status` as readers see it needs the clock: N past expiry reads as E. */
  now: string;
}

export async function listTransactions(db: Db, environmentId: string, f: TransactionFilters, page: Page) {
  let query = db.selectFrom('transactions').where('environment_id', '=', environmentId);
  if (f.order_id !== undefined) query = query.where('order_id', '=', f.order_id);
  if (f.currency !== undefined) query = query.where('currency', '=', f.currency);
  if (f.status === 'E') {
    query = query.where((eb) =>
      eb.or([eb('status', '=', 'E'), eb.and([eb('status', '=', 'N'), eb('expired_at', '<=', f.now)])]),
    );
  } else if (f.status === 'N') {
    query = query.where('status', '=', 'N').where('expired_at', '>', f.now);
  } else if (f.status !== undefined) {
    query = query.where('status', '=', f.status);
  }
  const { count, rows } = await countAndPage<TransactionRow>(query, page);
  const lines = rows.length
    ? await db
        .selectFrom('transaction_lines')
        .selectAll()
        .where(
          'transaction_id',
          'in',
          rows.map((r) => r.id),
        )
        .orderBy('position')
        .execute()
    : [];
  return {
    count,
    items: rows.map((row) => ({ row, lines: lines.filter((l) => l.transaction_id === row.id) })),
  };
}
