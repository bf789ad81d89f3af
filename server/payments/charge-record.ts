import { MERCHANT_INITIATED } from '../domain/authentication';
import { uuidv7 } from '../domain/ids';
import { secureRandomBytes } from '../domain/random';
import { type Db, inTransaction } from '../store/db';
import type { Outbox } from '../store/events';
import { type GatewayCall, settleCallWithResult } from '../store/gateway-calls';
import { newSaleRow } from '../store/new-sale';
import { addOperation } from '../store/sale-operations';
import type { AuthorizationRow } from '../store/schema';
import { insertSales, markLateCharge, settlePendingSale } from '../store/sale-aggregate';
import { touchAuthorization } from '../store/authorizations';
import { getAuthorization, getSale, type StoredSale } from '../store/sales';

// What the gateway's answer to a charge of a stored card writes, once, in one database
// transaction: its call settled, the sale (captured, declined, or the pending one settled),
// its operation, and the events. The rules are here; the rows are the store's.

export type ChargeOutcome =
  | { kind: 'approved'; sale: StoredSale }
  /** `authentication_required`: the sale's `confirm_token` is the page the customer may confirm it on (none for a transaction's source). */
  | { kind: 'declined'; sale: StoredSale; outcome: 'declined' | 'insufficient_funds' | 'authentication_required' }
  /** Its outcome was unknown (a pending sale) and the gateway never made it: the sale ends `failed`. */
  | { kind: 'not_processed'; sale: StoredSale };

export type ChargeAnswer =
  | { outcome: 'approved'; reference: string }
  | { outcome: 'declined' | 'insufficient_funds' | 'not_processed' }
  /** The issuer wants the cardholder: the processor keeps its payment (`processor`) for the customer to confirm. */
  | { outcome: 'authentication_required'; processor: string };

/** How long the customer may confirm a charge that needs them (docs/processors.md "Payments that need the customer"). */
export const CONFIRM_LINK_MS = 7 * 24 * 3600_000;

/** The confirm page's token: `cfm_` and 24 random bytes, URL-safe (no payment's or save page's token looks so). */
export const newConfirmToken = () => `cfm_${secureRandomBytes(24).toString('base64url')}`;

/** A link to confirm it, for a charge that needs the customer; none for a transaction's source (that payment is over, all or nothing). */
function confirmLink(call: GatewayCall, result: ChargeAnswer, now: Date) {
  if (result.outcome !== 'authentication_required' || call.request.source_transaction_id) return {};
  return { confirm_token: newConfirmToken(), confirm_expires_at: new Date(now.getTime() + CONFIRM_LINK_MS).toISOString() };
}

/**
 * The sale a charge call makes, as its answer leaves it, or (no answer yet) as it shows
 * while its outcome is unknown: pending, nothing moved.
 */
export function chargeSale(call: GatewayCall, card: Pick<AuthorizationRow, 'card_brand' | 'card_last4' | 'notify_url'>, id: string, now: Date, result?: ChargeAnswer) {
  const approved = result?.outcome === 'approved';
  return newSaleRow({
    id,
    environment_id: call.environment_id,
    authorization_id: call.subject_id,
    gateway_id: call.gateway_id,
    gateway_account: call.gateway_account,
    currency: call.currency,
    amount: call.amount,
    captured: approved ? call.amount : 0,
    description: (call.request.description as string | null | undefined) ?? null,
    card_brand: card.card_brand,
    card_last4: card.card_last4,
    notify_url: card.notify_url,
    failure: !result || approved ? null : result.outcome,
    ...(result ? confirmLink(call, result, now) : {}),
    pending: result ? 0 : 1,
    // A charge for a transaction's `source` belongs to it from the start (payments/sources.ts).
    source_transaction_id: (call.request.source_transaction_id as string | undefined) ?? null,
    // The merchant starts every charge of a stored card: never challenged (the cardholder
    // authenticated when it was stored), and marked so for the issuer.
    authentication_status: MERCHANT_INITIATED.status,
    authentication_method: MERCHANT_INITIATED.method,
    // Dated when the charge was reserved and sent, not when its answer was recorded: a
    // charge reserved before a removal (or recorded late by reconciliation) happened then.
    created_at: call.created_at,
    updated_at: now.toISOString(),
  });
}

/**
 * The gateway's answer to a charge: a captured sale, or a declined one that records the
 * attempt, once (null: another process recorded it).
 */
export async function recordCharge(db: Db, c: { call: GatewayCall; result: ChargeAnswer; now: Date; outbox: Outbox }): Promise<ChargeOutcome | null> {
  const approved = c.result.outcome === 'approved';
  // A success told after the settle window had failed the call (a notification): recorded into its failed sale, for the caller to reverse.
  const late = approved && c.call.state === 'failed';
  return inTransaction(db, async (trx) => {
    // A charge whose outcome was unknown already has its (pending, or since failed) sale: recorded
    // into it. Never made, and nothing shown for it yet: the call ends, and no sale.
    const newSale = c.result.outcome === 'not_processed' ? null : uuidv7(c.now.getTime());
    const processorId = c.result.outcome === 'approved' ? c.result.reference : c.result.outcome === 'authentication_required' ? c.result.processor : null;
    const settled = await settleCallWithResult(trx, c.call.id, [late ? 'failed' : 'pending'], approved ? 'succeeded' : 'failed', c.now, newSale, processorId);
    if (!settled?.resultId) return null;
    const saleId = settled.resultId;
    const pendingSale = saleId === newSale ? null : saleId;
    // Approved, the authorization moves on (updated_at): its row as that leaves it names the
    // sale's card and is the event's snapshot, one statement rather than a read and an update.
    const auth = approved ? await touchAuthorization(trx, c.call.subject_id, c.now) : (await getAuthorization(trx, null, c.call.subject_id))!;
    const sale = chargeSale(c.call, auth, saleId, c.now, c.result);
    if (late && pendingSale) await markLateCharge(trx, saleId, sale.captured, c.now);
    else if (pendingSale) await settlePendingSale(trx, saleId, sale, c.now);
    else await insertSales(trx, [sale]);
    const reference = c.result.outcome === 'approved' ? c.result.reference : null;
    const operation = c.result.outcome === 'not_processed' ? null : await addOperation(trx, sale.id, approved ? 'charge' : 'decline', c.call.amount, reference, c.now);
    // The sale as it is now is both the answer and its event's snapshot. One inserted here
    // is what was just written: its row, this operation and no fee yet (a balance
    // transaction follows the operation later), so it is not read back.
    const stored = pendingSale || !operation ? (await getSale(trx, null, sale.id))! : { row: sale, operations: [operation], fee: 0 };
    if (approved) {
      await c.outbox.emit(trx, late && pendingSale ? 'sale.late_payment' : 'sale.created', sale.id, c.now, { sale: stored });
      await c.outbox.emit(trx, 'authorization.charged', auth.id, c.now, { authorization: auth });
    } else {
      await c.outbox.emit(trx, c.result.outcome === 'not_processed' ? 'sale.failed' : 'sale.declined', sale.id, c.now, { sale: stored });
    }
    if (c.result.outcome === 'approved') return { kind: 'approved', sale: stored };
    if (c.result.outcome === 'not_processed') return { kind: 'not_processed', sale: stored };
    return { kind: 'declined', sale: stored, outcome: c.result.outcome };
  });
}
