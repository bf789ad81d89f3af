import { type DisputeStatus, disputePostings, isClosed } from '../domain/disputes';
import { uuidv7 } from '../domain/ids';
import { type Db, Rollback, rollbackOn, type Tx } from '../store/db';
import { disputeDebited, insertDispute, insertDisputeBalance, markDisputeMoved } from '../store/disputes';
import { moveSaleDisputed } from '../store/sale-aggregate';
import type { Outbox } from '../store/events';
import type { DisputeRow, SaleRow } from '../store/schema';
import { postMovement } from './ledger-posting';

// What a dispute's opening and each of its steps write, in one database transaction each:
// the dispute's row (its status moved by a conditional UPDATE from the status it was read
// in, so of two processes taking the same step exactly one does it), its money (the sale's
// `disputed`, a balance transaction and its ledger movement) and its event. Which step and
// which money are domain/disputes.ts's rules; disputes.ts decides when.

/**
 * The balance transaction of a dispute's money, its ledger movement and the sale's
 * `disputed`; false when the sale's money moved meanwhile. Without `inBalance` (a sale the
 * merchant's own processor settles, settlement.ts) only the sale's `disputed` moves: the
 * processor takes the money and its fee from the merchant there, not from our balance.
 */
async function postDisputeMoney(trx: Tx, outbox: Outbox, d: DisputeRow, money: 'debit' | 'reversal', now: Date, inBalance: boolean): Promise<boolean> {
  if (inBalance) {
    const row = await insertDisputeBalance(trx, d, money, now);
    const postings = disputePostings(money, d.sale_id, BigInt(d.amount), BigInt(d.fee));
    await postMovement(trx, outbox, { environmentId: d.environment_id, currency: d.currency, movementId: row.id, concept: row.type, postings, now });
  }
  // What the dispute holds of the sale is not refundable; won, it is again.
  return Boolean(await moveSaleDisputed(trx, d.sale_id, money === 'debit' ? d.amount : -d.amount, now));
}

/**
 * Opens a dispute on `sale` (one per sale), with its money unless it is an inquiry; null
 * when the sale has one already or its money moved meanwhile (refunded, disputed).
 */
export async function openDispute(
  db: Db,
  outbox: Outbox,
  o: {
    sale: SaleRow;
    amount: number;
    fee: number;
    reason: DisputeRow['reason'];
    status: DisputeStatus;
    money: 'debit' | null;
    /** The merchant's own processor settles the sale: no fee of ours, nothing in our balance. */
    settledByProcessor: boolean;
    dueBy: Date;
    now: Date;
    /** A processor's dispute: its ids, and when it was submitted or closed there already. */
    row?: Partial<Pick<DisputeRow, 'processor_id' | 'processor_dispute_id' | 'submitted_at' | 'closed_at'>>;
  },
): Promise<DisputeRow | null> {
  const at = o.now.toISOString();
  const row: DisputeRow = {
    id: uuidv7(o.now.getTime()),
    environment_id: o.sale.environment_id,
    created_at: at,
    updated_at: at,
    sale_id: o.sale.id,
    currency: o.sale.currency,
    amount: o.amount,
    fee: o.money && !o.settledByProcessor ? o.fee : 0,
    reason: o.reason,
    status: o.status,
    evidence_due_by: o.dueBy.toISOString(),
    evidence: '{}',
    submitted_at: null,
    closed_at: null,
    processor_id: null,
    processor_dispute_id: null,
    processor_sync: null,
    processor_claimed_until: null,
    ...o.row,
  };
  return rollbackOn<DisputeRow | null, null>(db, async (trx) => {
    if (!(await insertDispute(trx, row))) return null;
    if (o.money && !(await postDisputeMoney(trx, outbox, row, o.money, o.now, !o.settledByProcessor))) throw new Rollback(null);
    await outbox.emit(trx, 'dispute.created', row.id, o.now);
    return row;
  });
}

/**
 * Moves a dispute `from` → `to` with what that moves (the money of a won dispute, the
 * time it was submitted or closed), in the caller's transaction: false when another step
 * came first; a Rollback when the money could not move.
 */
export async function moveDispute(
  trx: Tx,
  outbox: Outbox,
  m: { dispute: DisputeRow; to: DisputeStatus; money: 'debit' | 'reversal' | null; now: Date },
): Promise<boolean> {
  if (!(await markDisputeMoved(trx, m.dispute, m.to, m.now))) return false;
  // Given back as it was taken: through our balance only if its debit went through it. A
  // debit on a move is a processor's inquiry turned into a dispute: its processor settles it.
  const inBalance = m.money === 'reversal' ? await disputeDebited(trx, m.dispute.id) : m.dispute.processor_id === null;
  if (m.money && !(await postDisputeMoney(trx, outbox, m.dispute, m.money, m.now, inBalance))) throw new Rollback(false);
  await outbox.emit(trx, isClosed(m.to) ? 'dispute.closed' : 'dispute.updated', m.dispute.id, m.now);
  return true;
}
