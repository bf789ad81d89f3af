import { balanced, type Posting } from './ledger';
import { isSourceSale } from './sales';

// The merchant's balance on the ledger: its `merchant` account. A balance transaction is
// one movement of it, for a sale's capture or charge (money in) or a refund (money out),
// with the platform's fee taken in the same movement into the `fees` account.
//
// A sale with a `destination` split already moved its card money in the movement that paid
// it (card_payments → wallets and merchant, domain/ledger.ts salePostings), and each refund
// of it took the merchant's part back as it was reserved: for those the balance movement
// carries only the fee (`card` 0).

export type BalanceType = 'charge' | 'refund';

/** The sale operations that move the merchant's money: a capture or a charge in, a refund out. */
const BALANCE_KINDS: readonly string[] = ['capture', 'charge', 'refund'];

/** Whether a sale operation of `kind` moves the merchant's money. */
export const movesBalance = (kind: string): boolean => BALANCE_KINDS.includes(kind);

/**
 * Whether a sale's money is the platform's balance. Not a sale paid from a wallet `source`:
 * its movement posts the merchant's part, and each refund of its sale takes it back. Not one
 * of a processor in `processorSettled`, which settles to the merchant's own account.
 */
export const inPlatformBalance = (sale: { source_transaction_id: string | null; gateway_id: string }, processorSettled: readonly string[]): boolean =>
  sale.source_transaction_id === null && !isSourceSale(sale) && !processorSettled.includes(sale.gateway_id);

/** Every type of balance transaction: a sale's (above), a dispute's and a payout's. */
export const BALANCE_TRANSACTION_TYPES = ['charge', 'refund', 'dispute', 'dispute_reversal', 'payout', 'payout_failure'] as const;

export interface BalanceMovement {
  type: BalanceType;
  sale: string;
  /** Card money this movement itself brings in (charge) or sends back (refund), ≥ 0. */
  card: bigint;
  fee: bigint;
}

/** The postings of a balance movement, or null when it moves nothing (no card part, no fee). */
export function balancePostings(m: BalanceMovement): Posting[] | null {
  const sign = m.type === 'charge' ? 1n : -1n;
  const counterpart = { with_sale: m.sale };
  const postings: Posting[] = [
    { account: { system: 'card_payments' }, amount: -sign * m.card, counterpart },
    { account: { system: 'merchant' }, amount: sign * m.card - m.fee, counterpart },
    { account: { system: 'fees' }, amount: m.fee, counterpart },
  ];
  return postings.some((p) => p.amount !== 0n) ? balanced(postings) : null;
}

/** When money becomes available: money in after the settlement delay, money out at once. */
export function availableOn(type: BalanceType, at: Date, delayDays: number): Date {
  return type === 'charge' ? new Date(at.getTime() + delayDays * 86_400_000) : at;
}
