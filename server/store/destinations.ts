import { findCurrency } from '../domain/currencies';
import { refundPostings, salePostings, type Share } from '../domain/ledger';
import { toUnits } from '../domain/money';
import type { Tx } from './db';
import type { Outbox } from './events';
import { postMovement } from './ledger';
import type { SaleRow } from './schema';

// A transaction's `destination`: wallets credited with their share of the sale in the
// database transaction that records the sale, and debited their proportional part of every
// refund of it (domain/ledger.ts has the rule) in the transaction that records the refund.

export interface Destination {
  wallet_id: string;
  /** Major units, as the transaction was created with them. */
  amount: number;
  concept?: string;
}

/** Decodes a transaction's `destination` column (JSON text, or null for none). */
export const destinationsOf = (text: string | null): Destination[] | null => (text ? (JSON.parse(text) as Destination[]) : null);

/** The destinations of a sale's transaction, in minor units; none for a sale without. */
async function sharesOf(trx: Tx, sale: SaleRow): Promise<{ shares: Share[]; concepts: (string | null)[] }> {
  if (!sale.transaction_id) return { shares: [], concepts: [] };
  const { destination } = await trx
    .selectFrom('transactions')
    .select('destination')
    .where('id', '=', sale.transaction_id)
    .executeTakeFirstOrThrow();
  const list = destinationsOf(destination) ?? [];
  const exponent = findCurrency(sale.currency)?.exponent ?? 2;
  return {
    shares: list.map((d) => ({ wallet: d.wallet_id, amount: toUnits(d.amount, exponent) })),
    concepts: list.map((d) => d.concept ?? null),
  };
}

/**
 * Credits the destinations of a sale just captured. They were checked when the transaction
 * was created; a wallet disabled since is credited all the same, because the customer has
 * already paid for the split.
 */
export async function creditDestinations(trx: Tx, outbox: Outbox, sale: SaleRow, now: Date): Promise<void> {
  const { shares, concepts } = await sharesOf(trx, sale);
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
 * Takes back the destinations' part of a refund of `amount`, the sale's refunded total
 * having been `before`, as movement `movementId` (the refund's gateway call: a refund the
 * gateway then fails is undone by reverseMovement). A wallet that no longer holds its
 * part refuses the posting (PostingRefused), and the refund with it; a wallet disabled
 * since gives its part back all the same.
 */
export async function takeBackDestinations(
  trx: Tx,
  outbox: Outbox,
  r: { sale: SaleRow; before: number; amount: number; movementId: string; now: Date },
): Promise<void> {
  const { shares } = await sharesOf(trx, r.sale);
  if (!shares.length) return;
  await postMovement(trx, outbox, {
    environmentId: r.sale.environment_id,
    currency: r.sale.currency,
    movementId: r.movementId,
    concept: 'refund',
    postings: refundPostings(r.sale.id, BigInt(r.sale.amount), shares, BigInt(r.before), BigInt(r.amount)),
    now: r.now,
    evenIfDisabled: true,
  });
}
