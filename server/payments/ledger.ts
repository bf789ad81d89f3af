import type { Tx } from '../store/db';
import type { Outbox } from '../store/events';
import { type Movement, postMovement } from '../store/ledger';
import type { LedgerEntryRow } from '../store/schema';

/**
 * Posts a movement and records, in the same database transaction, a wallet.credited or
 * wallet.debited event for each wallet entry it wrote.
 */
export async function move(trx: Tx, outbox: Outbox, m: Movement): Promise<LedgerEntryRow[]> {
  const entries = await postMovement(trx, m);
  for (const e of entries) await outbox.emit(trx, e.amount > 0 ? 'wallet.credited' : 'wallet.debited', e.id, m.now);
  return entries;
}
