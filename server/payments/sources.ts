import { findCurrency } from '../domain/currencies';
import { uuidv7 } from '../domain/ids';
import { type Share, sourcedPostings } from '../domain/ledger';
import { toUnits } from '../domain/money';
import { actionLimit, SOURCES_GATEWAY } from '../domain/sales';
import { inTransaction } from '../store/db';
import { getWallet } from '../store/ledger';
import { claimStaleSourcePayments, hasPendingSourceCharge, reserveSourcePayment, sourceCharges } from '../store/source-payments';
import { failSourcePayment, markSourcePaid } from '../store/transaction-aggregate';
import type { SaleRow, SaleSourceRow } from '../store/schema';
import type { StoredTransaction, Transaction } from '../store/transactions';
import { newSaleRow } from '../store/new-sale';
import { insertSourceSale } from '../store/source-sales';
import { destinationShares, type ResolvedSource } from '../transactions/create';
import type { PaymentDeps } from './ask';
import { chargeAuthorization } from './charge';
import { type Movement, PostingRefused, postMovement } from './ledger-posting';
import { moveSaleMoney } from './sale-actions';

// A transaction paid at creation from its `source`: wallets and stored cards, all or
// nothing, and never half done. Wallets are checked first (nothing is stored or charged if
// one cannot pay). Then the transaction is stored `reserved` (status N, claimed by this
// process through processing_until: the page cannot pay it, nor the sweep expire it)
// before the first card is charged; each card's charge is linked to it as it is recorded.
// Last, one database transaction marks it paid with its sale (one for the transaction,
// listing its sources) and its ledger movement (the wallets' debits, the cards' money, the
// destinations' credits, each entry naming the sale). If a card declines, or a wallet no
// longer holds its amount at that step, every charge made is refunded in full (the ledger
// untouched) and the transaction is failed (C). A process that dies on the way leaves it
// reserved: once its claim runs out, the source-payments job completes it (every card
// charged) or compensates it the same way (settleSourcePayments).

export type SourcesOutcome =
  | { kind: 'paid' }
  | { kind: 'failed'; index: number; reason: string }
  /** A card's charge has an unknown outcome: the transaction stays reserved until it is proven, then the job finishes it. */
  | { kind: 'pending' };

/** How long a source payment's claim lasts: each card's charge and its refund, and the record. */
const claimMsOf = (deps: PaymentDeps, cards: number) => deps.config.paymentClaimMs * (2 * cards + 1);

export async function payFromSources(
  deps: PaymentDeps,
  p: { tx: StoredTransaction; sources: ResolvedSource[]; destinations: Share[] },
): Promise<SourcesOutcome> {
  const { row } = p.tx;
  const db = deps.database.db;
  const wallets = p.sources.flatMap((s) => ('wallet' in s ? [s] : []));
  for (const s of wallets) {
    const w = (await getWallet(db, row.environment_id, s.wallet))!;
    const owed = wallets.filter((o) => o.wallet === s.wallet).reduce((a, o) => a + o.amount, 0);
    if (!w.enabled) return { kind: 'failed', index: s.index, reason: 'the wallet is disabled' };
    if (w.balance < owed) return { kind: 'failed', index: s.index, reason: 'the wallet does not hold enough money' };
  }

  const cards = p.sources.flatMap((s) => ('authorization' in s ? [s] : []));
  await reserveSourcePayment(db, p.tx, new Date(deps.now().getTime() + claimMsOf(deps, cards.length)));
  for (const s of cards) {
    const r = await chargeAuthorization(deps, {
      authorization: s.authorization,
      amount: s.amount,
      currency: row.currency,
      description: chargeDescription(s.index, row.id),
      sourceTransactionId: row.id,
    });
    if (r.kind === 'approved') continue;
    // A charge of unknown outcome may still have been made: nothing is compensated until it
    // is proven; the transaction stays reserved and the source-payments job finishes it.
    if (r.kind === 'pending' || r.kind === 'in_flight' || r.kind === 'attention') return { kind: 'pending' };
    const reason =
      r.kind === 'declined' ? `the card was declined (${r.outcome})` : r.kind === 'not_active' ? 'the authorization was removed' : 'the gateway failed';
    return compensate(deps, row, { kind: 'failed', index: s.index, reason });
  }
  return complete(deps, row, p.destinations);
}

/** A card's charge says which source it is: how the transaction's sale finds its charges. */
const chargeDescription = (index: number, transactionId: string) => `source ${index} of transaction ${transactionId}`;

/**
 * The transaction's sale: one for the whole transaction, captured whole, its sources in the
 * transaction's order (a card's with its charge). Its `gateway` is SOURCES_GATEWAY: each
 * card's charge names its own.
 */
function sourceSale(row: Transaction, id: string, charged: SaleRow[], now: Date): { sale: SaleRow; sources: SaleSourceRow[] } {
  const at = now.toISOString();
  const sources = storedSources(row).all.map(
    (s): SaleSourceRow => ({
      sale_id: id,
      position: s.index,
      wallet_id: s.wallet_id ?? null,
      authorization_id: s.authorization_id ?? null,
      charge_id: s.authorization_id === undefined ? null : (charged.find((c) => c.description === chargeDescription(s.index, row.id))?.id ?? null),
      amount: s.amount,
      refunded: 0,
    }),
  );
  const sale = newSaleRow({
    id,
    environment_id: row.environment_id,
    transaction_id: row.id,
    gateway_id: SOURCES_GATEWAY,
    gateway_account: null,
    currency: row.currency,
    amount: row.total_price,
    captured: row.total_price,
    notify_url: row.notify_url,
    created_at: at,
    updated_at: at,
  });
  return { sale, sources };
}

/** Every card charged: the transaction paid with its sale and movement, or compensated if a wallet no longer pays. */
async function complete(deps: PaymentDeps, row: Transaction, destinations: Share[]): Promise<SourcesOutcome> {
  const charged = (await sourceCharges(deps.database.db, row.id)).filter(isCharged);
  const { wallets } = storedSources(row);
  const now = deps.now();
  const saleId = uuidv7(now.getTime());
  try {
    await recordPaid(deps, {
      transactionId: row.id,
      environmentId: row.environment_id,
      currency: row.currency,
      movementId: row.id,
      concept: `transaction ${row.id}`,
      postings: sourcedPostings(
        `transaction:${row.id}`,
        wallets.map((s) => ({ wallet: s.wallet, amount: BigInt(s.amount) })),
        BigInt(charged.reduce((a, s) => a + s.amount, 0)),
        destinations,
        saleId,
      ),
      sale: sourceSale(row, saleId, charged, now),
      now,
    });
  } catch (err) {
    if (!(err instanceof PostingRefused)) throw err;
    const index = wallets.find((s) => s.wallet === err.wallet)!.index;
    return compensate(deps, row, { kind: 'failed', index, reason: `the wallet ${err.reason === 'disabled' ? 'is disabled' : 'does not hold enough money'}` });
  }
  return { kind: 'paid' };
}

/**
 * reserved → paid with its sale, its ledger movement and events, once (nothing when settled
 * already). A wallet refusing (PostingRefused) rolls it all back.
 */
function recordPaid(deps: PaymentDeps, m: Movement & { transactionId: string; sale: { sale: SaleRow; sources: SaleSourceRow[] } }): Promise<void> {
  return inTransaction(deps.database.db, async (trx) => {
    if (!(await markSourcePaid(trx, m.transactionId, m.now))) return;
    await insertSourceSale(trx, m.sale, m.now);
    await deps.outbox.emit(trx, 'sale.created', m.sale.sale.id, m.now);
    await postMovement(trx, deps.outbox, m);
    await deps.outbox.emit(trx, 'transaction.paid', m.transactionId, m.now);
  });
}

/** A charge that took the money: approved and proven (not pending, declined or never processed). */
const isCharged = (s: SaleRow) => s.failure === null && s.pending === 0;

/**
 * Refunds in full every charge made for the transaction, then fails it. A refund that does
 * not happen now (or whose outcome is not known yet) leaves it reserved: the
 * source-payments job compensates again once the claim runs out (a charge already refunded
 * has nothing refundable left).
 */
async function compensate(deps: PaymentDeps, row: Transaction, failure: Extract<SourcesOutcome, { kind: 'failed' }>): Promise<SourcesOutcome> {
  const db = deps.database.db;
  for (const sale of await sourceCharges(db, row.id)) {
    const amount = actionLimit('refund', sale);
    if (amount <= 0 || !isCharged(sale)) continue;
    const refund = await moveSaleMoney(deps, { sale, action: 'refund', amount });
    if (refund.kind !== 'done') deps.log.error({ transaction: row.id, sale: sale.id, outcome: refund.kind }, 'a charge of a failed source payment could not be refunded yet');
  }
  const left = (await sourceCharges(db, row.id)).filter((s) => s.pending > 0 || s.refunding > 0 || (isCharged(s) && actionLimit('refund', s) > 0));
  if (!left.length) await failSourcePayment(db, row.id, `source.${failure.index}: ${failure.reason}`, deps.now());
  return failure;
}

/** A stored transaction's sources in minor units, as the live payment resolved them (authorizations by id only). */
function storedSources(row: Transaction) {
  const exponent = findCurrency(row.currency)?.exponent ?? 2;
  const all = (row.source ?? []).map((s, index) => ({ ...s, index, amount: Number(toUnits(s.amount, exponent)) }));
  return {
    all,
    wallets: all.flatMap((s): Extract<ResolvedSource, { wallet: string }>[] => (s.wallet_id !== undefined ? [{ index: s.index, amount: s.amount, wallet: s.wallet_id }] : [])),
    cards: all.flatMap((s) => (s.authorization_id !== undefined ? [s.index] : [])),
  };
}

/**
 * The source-payments job: reserved source payments whose process died, finished once
 * every charge sent for them is recorded (reconciliation records a charge left pending):
 * completed if every card was charged, compensated otherwise.
 */
export async function settleSourcePayments(deps: PaymentDeps, limit = 10): Promise<number> {
  const db = deps.database.db;
  const now = deps.now();
  const stale = await claimStaleSourcePayments(db, now, deps.config.paymentClaimMs, limit);
  for (const row of stale) {
    if (await hasPendingSourceCharge(db, row.id)) continue;
    const { cards } = storedSources(row);
    const charges = await sourceCharges(db, row.id);
    const approved = charges.filter(isCharged).length;
    const outcome =
      approved === cards.length && charges.length === cards.length
        ? await complete(deps, row, destinationShares(row))
        : await compensate(deps, row, { kind: 'failed', index: cards[approved] ?? cards[0] ?? 0, reason: 'the payment was interrupted before every card was charged' });
    deps.log.warn({ transaction: row.id, outcome: outcome.kind }, 'interrupted source payment finished');
  }
  return stale.length;
}
