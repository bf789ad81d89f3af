import { type Account, refundPostings, salePostings } from '../domain/ledger';
import { isSourceSale } from '../domain/sales';
import type { Tx } from '../store/db';
import { type Destination, destinationsOf, sourcePaymentRefunded, splitOf, splitOfList } from '../store/destinations';
import type { Outbox } from '../store/events';
import type { SaleRow } from '../store/schema';
import { postMovement } from './ledger-posting';

// A transaction's `destination`: wallets credited with their share of the sale in the
// database transaction that records the sale, and debited their proportional part of every
// refund of it (domain/ledger.ts has the arithmetic) in the transaction that reserves the
// refund. Called inside those transactions by the use cases that own them.

/**
 * What a refund of a sale is taken back from: the split of the transaction the sale paid,
 * over the part of it that can be refunded and what has been refunded (or is being
 * refunded: each refund takes its part back when it is reserved) of that part so far,
 * this refund excluded.
 *
 * - A sale of the checkout carries its transaction's whole split: the pool is the sale.
 *   So does the sale of a transaction paid from its `source`: each of its refund's parts
 *   (a card's, a wallet's) takes its share back on the sale's running total.
 * - The card charges of a transaction paid from its `source` each paid part of it: the
 *   pool is the transaction's total, and what has been refunded of it is the sum of its
 *   charges' refunds (the wallets' part was not refunded then).
 */
async function refundPool(trx: Tx, sale: SaleRow, amount: number, known?: KnownSplit) {
  const split = (transactionId: string) => (known ? splitOfList(destinationsOf(known.destination) ?? [], sale.currency) : splitOf(trx, transactionId, sale.currency));
  if (sale.transaction_id) {
    return { ...(await split(sale.transaction_id)), total: sale.amount, before: sale.refunded + sale.refunding - amount };
  }
  if (!sale.source_transaction_id) return null;
  const { total, refunded } = await sourcePaymentRefunded(trx, sale.source_transaction_id);
  return { ...(await split(sale.source_transaction_id)), total, before: refunded - amount };
}

/** The `destination` of the transaction a sale paid (or its source payment's), as stored, when its caller has read it already. */
export interface KnownSplit {
  destination: string | null;
}

/**
 * Credits the destinations of a sale just captured. They were checked when the transaction
 * was created; a wallet disabled since is credited all the same, because the customer has
 * already paid for the split.
 */
export async function creditDestinations(trx: Tx, outbox: Outbox, sale: SaleRow, destinations: Destination[] | null, now: Date): Promise<void> {
  if (!sale.transaction_id) return;
  const { shares, concepts } = splitOfList(destinations ?? [], sale.currency);
  if (!shares.length) return;
  await postMovement(trx, outbox, {
    environmentId: sale.environment_id,
    currency: sale.currency,
    movementId: sale.id,
    concept: concepts.find((c) => c !== null) ?? null,
    postings: salePostings(sale.id, BigInt(sale.amount), shares),
    now,
    evenIfDisabled: true,
  });
}

/**
 * Takes back the destinations' part of a refund of `amount` (already reserved in the
 * sale's `refunding`), as movement `movementId` (the refund's gateway call: a refund the
 * gateway then fails is undone by reverseMovement); the refunded money goes `to` the cards,
 * or to a wallet that paid part of a `source`. A wallet that no longer holds its part gives
 * what it holds and the platform covers the rest, as a receivable on the wallet; a wallet
 * disabled since gives its part back all the same.
 */
export async function takeBackDestinations(
  trx: Tx,
  outbox: Outbox,
  r: { sale: SaleRow; amount: number; movementId: string; now: Date; to?: Account; split?: KnownSplit },
): Promise<void> {
  const pool = await refundPool(trx, r.sale, r.amount, r.split);
  // A checkout sale without a split leaves the merchant's part to its balance transaction
  // (payments/balance.ts); a source payment's sale has none: its refund moves it here.
  if (!pool || (!pool.shares.length && !isSourceSale(r.sale))) return;
  await postMovement(trx, outbox, {
    environmentId: r.sale.environment_id,
    currency: r.sale.currency,
    movementId: r.movementId,
    concept: 'refund',
    postings: refundPostings(r.sale.id, BigInt(pool.total), pool.shares, BigInt(pool.before), BigInt(r.amount), r.to),
    now: r.now,
    evenIfDisabled: true,
    // The customer is refunded whatever a destination has done with its share since.
    coverShortfall: true,
  });
}
