import { uuidv7 } from '../domain/ids';
import { transferPostings } from '../domain/ledger';
import { type Db, inTransaction } from '../store/db';
import { isUniqueViolation } from '../store/errors';
import type { Outbox } from '../store/events';
import { PostingRefused, postMovement } from '../store/ledger';
import type { TransferRow, WalletRow } from '../store/schema';
import { insertTransfer } from '../store/transfers';

// Transfers between wallets: the transfer row, its two ledger entries and their events,
// in one database transaction, settled at once.

export type TransferOutcome =
  | { kind: 'made'; transfer: TransferRow }
  | { kind: 'refused'; refusal: PostingRefused }
  | { kind: 'duplicate' };

export interface WalletTransfer {
  source: WalletRow;
  destination: WalletRow;
  /** Minor units of the wallets' currency, > 0. */
  amount: number;
  concept: string | null;
  transferId: string | null;
  notifyUrl: string | null;
  now: Date;
}

export async function transferBetweenWallets(db: Db, outbox: Outbox, t: WalletTransfer): Promise<TransferOutcome> {
  const at = t.now.toISOString();
  const row: TransferRow = {
    id: uuidv7(t.now.getTime()),
    environment_id: t.source.environment_id,
    transfer_id: t.transferId,
    source_wallet: t.source.id,
    destination_wallet: t.destination.id,
    destination_iban: null,
    amount: t.amount,
    currency: t.source.currency,
    concept: t.concept,
    status: 'paid',
    failure: null,
    notify_url: t.notifyUrl,
    locked_until: null,
    created_at: at,
    updated_at: at,
  };
  try {
    await inTransaction(db, async (trx) => {
      await insertTransfer(trx, row);
      await postMovement(trx, outbox, {
        environmentId: row.environment_id,
        currency: row.currency,
        movementId: row.id,
        transfer: row.id,
        concept: row.concept,
        postings: transferPostings(row.source_wallet, row.destination_wallet!, BigInt(row.amount)),
        now: t.now,
      });
      await outbox.emit(trx, 'transfer.paid', row.id, t.now);
    });
  } catch (err) {
    if (err instanceof PostingRefused) return { kind: 'refused', refusal: err };
    if (isUniqueViolation(err)) return { kind: 'duplicate' };
    throw err;
  }
  return { kind: 'made', transfer: row };
}
