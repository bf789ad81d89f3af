import { uuidv7 } from '../domain/ids';
import type { PayoutKind, PayoutState } from '../domain/sepa/states';
import { releasePayoutLines } from '../store/balance';
import type { Tx } from '../store/db';
import type { EventType } from '../domain/event-types';
import type { Outbox } from '../store/events';
import { getMerchantPayout, recordPayoutBalance } from '../store/merchant-payouts';
import { changePayoutStatus } from '../store/payout-files';
import { reverseMovement } from './ledger-posting';

// One change of state of a payout paid by SEPA file (docs/balance.md#payout-files), as
// domain/sepa/states.ts decided it: one conditional status update from the state the
// caller read, one event named after the state entered, and, entering `failed` or
// `returned`, the money back where it came from, as a failed payout's is (payouts.ts,
// merchant-payouts.ts): the ledger movement reversed, and for the merchant's payouts a
// `payout_failure` balance transaction with the lines released for the next payout. The
// conditional update makes each of these happen once, whoever applies it.

export interface PayoutChange {
  kind: PayoutKind;
  id: string;
  from: PayoutState;
  to: PayoutState;
  moneyBack: boolean;
  /** Why (a refusal, a return reason, an owner's words); kept in `failure` when failed or returned. */
  reason: string | null;
}

/** Applies `c` in `trx`; false, changing nothing, when the payout was no longer in `c.from`. */
export async function applyPayoutChange(trx: Tx, outbox: Outbox, c: PayoutChange, now: Date): Promise<boolean> {
  const keeps = c.to === 'failed' || c.to === 'returned' ? c.reason : null;
  if (!(await changePayoutStatus(trx, c.kind, c.id, c.from, c.to, keeps, now))) return false;
  if (c.moneyBack) await moneyBack(trx, outbox, c, now);
  await outbox.emit(trx, `${c.kind}.${c.to}` as EventType, c.id, now);
  return true;
}

async function moneyBack(trx: Tx, outbox: Outbox, c: PayoutChange, now: Date): Promise<void> {
  const concept = c.to === 'returned' ? 'payout returned by the bank' : 'payout failed: returned';
  if (c.kind === 'merchant_payout') {
    const payout = (await getMerchantPayout(trx, null, c.id))!;
    await releasePayoutLines(trx, payout.id);
    await recordPayoutBalance(trx, payout, 'payout_failure', BigInt(payout.amount), now);
  }
  await reverseMovement(trx, outbox, { movementId: c.id, reversalId: uuidv7(now.getTime()), concept, now });
}
