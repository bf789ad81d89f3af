import { uuidv7 } from '../domain/ids';
import { type Posting, transferPostings } from '../domain/ledger';
import { type Db, inTransaction, type Tx } from '../store/db';
import { isUniqueViolation } from '../store/errors';
import type { Outbox } from '../store/events';
import { lockWallets, type Wallet } from '../store/ledger';
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
  /** Read once the wallets' rows are taken: a transfer is dated after those before it. */
  clock: () => Date;
}

/** The row of a new transfer out of `t.source`, made at `now`. */
export function transferRow(t: NewTransfer, now: Date, to: Pick<TransferRow, 'destination_wallet' | 'destination_iban' | 'status'>): TransferRow {
  const at = now.toISOString();
  return {
    id: uuidv7(now.getTime()),
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

/** A transfer as made at `now`: its row, its postings, and what else its transaction writes. */
export interface TransferMade {
  row: TransferRow;
  postings: Posting[];
  also?: (trx: Tx) => Promise<void>;
}

/**
 * Takes the rows of the wallets it moves (in id order, as every movement does), then
 * reads the clock, inserts the transfer and posts its movement, in one transaction: of
 * concurrent transfers out of one wallet, each one's entries are dated after those of the
 * one before it. A refused posting or a transfer_id already used comes back as an outcome,
 * nothing written.
 */
export async function recordTransfer(
  db: Db,
  outbox: Outbox,
  t: { wallets: string[]; clock: () => Date; make: (now: Date) => TransferMade },
): Promise<TransferOutcome> {
  let made: TransferMade | undefined;
  try {
    await inTransaction(db, async (trx) => {
      await lockWallets(trx, t.wallets);
      const now = t.clock();
      made = t.make(now);
      const { row, postings, also } = made;
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
      await also?.(trx);
    });
  } catch (err) {
    if (err instanceof PostingRefused) return { kind: 'refused', refusal: err };
    if (isUniqueViolation(err)) return { kind: 'duplicate' };
    throw err;
  }
  return { kind: 'made', transfer: made!.row };
}

export function transferBetweenWallets(db: Db, outbox: Outbox, t: NewTransfer & { destination: Wallet }): Promise<TransferOutcome> {
  return recordTransfer(db, outbox, {
    wallets: [t.source.id, t.destination.id],
    clock: t.clock,
    make: (now) => {
      const row = transferRow(t, now, { destination_wallet: t.destination.id, destination_iban: null, status: 'paid' });
      return {
        row,
        postings: transferPostings(row.source_wallet, t.destination.id, BigInt(row.amount)),
        also: (trx) => outbox.emit(trx, 'transfer.paid', row.id, now),
      };
    },
  });
}
