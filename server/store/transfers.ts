import type { ExpressionBuilder } from 'kysely';
import type { PayoutState } from '../domain/sepa/states';
import type { Db, Tx } from './db';
import { claimEach } from './locking';
import { countAndPage, type Page } from './paging';
import type { Tables, TransferRow } from './schema';

// Transfer rows. The money they move is in the ledger (payments/ledger-posting.ts), posted in the same
// database transaction that inserts or changes the row.

export type TransferFilters = Partial<Pick<TransferRow, 'status' | 'transfer_id' | 'source_wallet' | 'destination_wallet'>>;

export function getTransfer(db: Db, environmentId: string | null, id: string): Promise<TransferRow | undefined> {
  let query = db.selectFrom('transfers').selectAll().where('id', '=', id);
  if (environmentId !== null) query = query.where('environment_id', '=', environmentId);
  return query.executeTakeFirst();
}

export function findTransferById(db: Db, environmentId: string, transferId: string): Promise<TransferRow | undefined> {
  return db
    .selectFrom('transfers')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('transfer_id', '=', transferId)
    .executeTakeFirst();
}

export async function listTransfers(db: Db, environmentId: string, f: TransferFilters, page: Page) {
  let query = db.selectFrom('transfers').where('environment_id', '=', environmentId);
  for (const [column, value] of Object.entries(f)) {
    if (value !== undefined) query = query.where(column as keyof TransferFilters, '=', value);
  }
  return countAndPage<TransferRow>(query, page);
}

export async function insertTransfer(db: Db, row: TransferRow): Promise<void> {
  await db.insertInto('transfers').values(row).execute();
}

/**
 * Claims up to `limit` pending payouts until `now + leaseMs`, one conditional UPDATE each,
 * so of two workers racing for a payout exactly one gets it; a worker that dies holding
 * one loses it when the lease runs out, and the next sends it again (same reference).
 * `sandboxOnly`: live environments pay out by file (PAYOUT_PROVIDER=sepa-file), so their
 * pending payouts wait for a file, not for this worker, and must not fill its batches.
 */
export async function claimDuePayouts(db: Db, now: Date, leaseMs: number, limit: number, sandboxOnly = false): Promise<TransferRow[]> {
  const at = now.toISOString();
  const free = (eb: ExpressionBuilder<Tables, 'transfers'>) =>
    eb.and([
      eb('status', '=', 'pending'),
      eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', at)]),
      ...(sandboxOnly ? [eb('environment_id', 'in', eb.selectFrom('environments').select('id').where('mode', '=', 'sandbox'))] : []),
    ]);
  return claimEach(db, db.selectFrom('transfers').select('id').where(free).orderBy('id').limit(limit), ({ id }) =>
    db
      .updateTable('transfers')
      .set({ locked_until: new Date(now.getTime() + leaseMs).toISOString() })
      .where('id', '=', id)
      .where(free)
      .returningAll()
      .executeTakeFirst(),
  );
}

/** A payout pending → paid, or → failed (the reason given), once: false when it was settled already. */
export async function markTransferSettled(trx: Tx, id: string, failure: string | null, now: Date): Promise<boolean> {
  const done = await trx
    .updateTable('transfers')
    .set({ status: failure ? 'failed' : 'paid', failure, locked_until: null, updated_at: now.toISOString() })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

/** Why a pending payout is not in a file yet, or null (store/payout-files.ts setWaitingReason). */
export async function setTransferWaitingReason(db: Db, id: string, reason: string | null, now: Date): Promise<void> {
  await db
    .updateTable('transfers')
    .set({ failure: reason, updated_at: now.toISOString() })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('failure', reason === null ? 'is not' : 'is', null)
    .execute();
}

/** A payout's status changed by its file, from the state its reader saw: false when it had changed meanwhile (store/payout-files.ts changePayoutStatus). */
export async function changeTransferStatus(trx: Tx, id: string, from: PayoutState, to: PayoutState, failure: string | null, now: Date): Promise<boolean> {
  const done = await trx
    .updateTable('transfers')
    .set({ status: to, failure, locked_until: null, updated_at: now.toISOString() })
    .where('id', '=', id)
    .where('status', '=', from)
    .executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}
