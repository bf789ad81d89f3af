import { uuidv7 } from '../domain/ids';
import { type Posting, transferPostings } from '../domain/ledger';
import { type Db, inTransaction, type Tx } from '../store/db';
import { isUniqueViolation } from '../store/errors';
import type { Outbox } from '../store/events';
import type { Wallet } from '../store/ledger';
import type { TransferRow } from '../store/schema';
import { insertTransfer } from '../store/transfers';
import { PostingRefused, postMovement } from './ledger-posting';

// Transfers: the transfer row, its ledger movement and its events in one database
// transaction. Between wallets it is settled at once; to an IBAN it is a payout
// (payouts.ts), pending until the payout gateway answers.

export type TransferOutcome =
  | { kind: 'made'; transfer: TransferRow }
  | { kind: 'refused'; refusal: PostingRefused }
  | { kind: 'duplicate' };

export interface NewTransfer {
  source: Wallet;
  /** Minor units of the wallets' currency, > 0. */
  amount: number;
  concept: string | null;
  transferId: string | null;
  notifyUrl: string | null;
  now: Date;
}

/** The row of a new transfer out of `t.source`. */
export function transferRow(t: NewTransfer, to: Pick<TransferRow, 'destination_wallet' | 'destination_iban' | 'status'>): TransferRow {
  const at = t.now.toISOString();
  return {
    id: uuidv7(t.now.getTime()),
    environment_id: t.source.environment_id,
    transfer_id: t.transferId,
    source_wallet: t.source.id,
    amount: t.amount,
    currency: t.source.currency,
    concept: t.concept,
    failure: null,
    notify_url: t.notifyUrl,
    locked_until: null,
    created_at: at,
    updated_at: at,
    ...to,
  };
}

/**
 * Inserts the transfer and posts its movement (then `also`, in the same transaction); a
 * refused posting or a transfer_id already used comes back as an outcome, nothing written.
 */
export async function recordTransfer(
  db: Db,
  outbox: Outbox,
  row: TransferRow,
  postings: Posting[],
  now: Date,
  also: (trx: Tx) => Promise<void> = async () => undefined,
): Promise<TransferOutcome> {
  try {
    await inTransaction(db, async (trx) => {
      await insertTransfer(trx, row);
      await postMovement(trx, outbox, {
        environmentId: row.environment_id,
        currency: row.currency,
        movementId: row.id,
        transfer: row.id,
        concept: row.concept,
        postings,
        now,
      });
      await also(trx);
    });
  } catch (err) {
    if (err instanceof PostingRefused) return { kind: 'refused', refusal: err };
    if (isUniqueViolation(err)) return { kind: 'duplicate' };
    throw err;
  }
  return { kind: 'made', transfer: row };
}

export function transferBetweenWallets(db: Db, outbox: Outbox, t: NewTransfer & { destination: Wallet }): Promise<TransferOutcome> {
  const row = transferRow(t, { destination_wallet: t.destination.id, destination_iban: null, status: 'paid' });
  const postings = transferPostings(row.source_wallet, t.destination.id, BigInt(row.amount));
  return recordTransfer(db, outbox, row, postings, t.now, (trx) => outbox.emit(trx, 'transfer.paid', row.id, t.now));
}
