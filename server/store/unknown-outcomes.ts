import { MERCHANT_INITIATED } from '../domain/authentication';
import { uuidv7 } from '../domain/ids';
import { NOT_PROCESSED } from '../domain/sales';
import { type Db, inTransaction, type Tx } from './db';
import { type GatewayCall, salesOfAction } from './gateway-calls';
import { newSaleRow } from './new-sale';
import type { SaleRow } from './schema';

// A gateway call whose outcome is unknown (it threw, timed out, or its process died
// asking) stays `pending` until a lookup or a notification proves what the gateway did.
// Meanwhile what it would have made shows as pending: a charge as a sale in state
// `pending` (the one the result is recorded into, so its id never changes), a capture /
// refund / void as its sale's `pending` count, a checkout payment as its transaction
// "being checked" (it takes no other payment meanwhile: store/payments.ts). Nothing is
// released: unknown is never "nothing was charged".

/**
 * Marks a pending call's outcome unknown, once, claimed until `claimedUntil` (now: due for
 * reconciliation at once); null when another process settled or marked it first.
 */
export async function markUnknown(db: Db, call: GatewayCall, now: Date, claimedUntil = now): Promise<GatewayCall | null> {
  const at = now.toISOString();
  const until = claimedUntil.toISOString();
  return inTransaction(db, async (trx) => {
    const marked = await trx
      .updateTable('gateway_calls')
      .set({ unknown_since: at, claimed_until: until, updated_at: at })
      .where('id', '=', call.id)
      .where('state', '=', 'pending')
      .where('unknown_since', 'is', null)
      .executeTakeFirst();
    if (Number(marked.numUpdatedRows) !== 1) return null;
    let resultId = call.result_id;
    if (call.kind === 'charge') {
      resultId = await insertPendingSale(trx, call, now);
      await trx.updateTable('gateway_calls').set({ result_id: resultId }).where('id', '=', call.id).execute();
    } else if (call.kind === 'store') {
      await insertPendingAuthorization(trx, call, now);
    } else if (call.kind === 'pay') {
      // The payment page now shows the payment being checked: its kept copy must go (checkout/page-cache.ts).
      await trx.updateTable('transactions').set({ updated_at: at }).where('id', '=', call.subject_id).execute();
    } else if (call.kind === 'capture' || call.kind === 'refund' || call.kind === 'void') {
      for (const id of salesOfAction(call)) {
        await trx.updateTable('sales').set((eb) => ({ pending: eb('pending', '+', 1), updated_at: at })).where('id', '=', id).execute();
      }
    }
    return { ...call, unknown_since: at, claimed_until: until, result_id: resultId };
  });
}

/** The sale a charge of unknown outcome would make, with nothing moved yet. */
async function insertPendingSale(trx: Tx, call: GatewayCall, now: Date): Promise<string> {
  const auth = await trx
    .selectFrom('authorizations')
    .select(['notify_url', 'card_brand', 'card_last4'])
    .where('id', '=', call.subject_id)
    .executeTakeFirstOrThrow();
  const sale = newSaleRow({
    id: uuidv7(now.getTime()),
    environment_id: call.environment_id,
    authorization_id: call.subject_id,
    gateway_id: call.gateway_id,
    currency: call.currency,
    amount: call.amount,
    description: (call.request.description as string | null | undefined) ?? null,
    card_brand: auth.card_brand,
    card_last4: auth.card_last4,
    notify_url: auth.notify_url,
    // A charge for a transaction's `source` belongs to it from the start (payments/sources.ts).
    source_transaction_id: (call.request.source_transaction_id as string | undefined) ?? null,
    pending: 1,
    // The merchant starts every charge of a stored card: never challenged (the cardholder
    // authenticated when it was stored), and marked so for the issuer.
    authentication_status: MERCHANT_INITIATED.status,
    authentication_method: MERCHANT_INITIATED.method,
    // Dated when the call was made, as a sale recorded from a known answer is.
    created_at: call.created_at,
    updated_at: now.toISOString(),
  });
  await trx.insertInto('sales').values(sale).execute();
  return sale.id;
}

/** The authorization a store of unknown outcome would make (its id chosen at reservation), with no card yet. */
async function insertPendingAuthorization(trx: Tx, call: GatewayCall, now: Date): Promise<void> {
  await trx
    .insertInto('authorizations')
    .values({
      id: call.subject_id,
      environment_id: call.environment_id,
      transaction_id: null,
      gateway_id: call.gateway_id,
      status: 'pending',
      card_brand: null,
      card_last4: null,
      card_exp_month: null,
      card_exp_year: null,
      gateway_reference: '',
      notify_url: (call.request.notify_url as string | null | undefined) ?? null,
      created_at: call.created_at,
      updated_at: now.toISOString(),
    })
    .execute();
}

/**
 * The pending sale of a charge gets what the gateway did: its amounts (or its
 * failure) and no longer pending. Inside the recording transaction.
 */
export async function settlePendingSale(
  trx: Tx,
  saleId: string,
  set: Partial<Pick<SaleRow, 'captured' | 'failure'>>,
  now: Date,
): Promise<void> {
  await trx
    .updateTable('sales')
    .set({ ...set, pending: 0, updated_at: now.toISOString() })
    .where('id', '=', saleId)
    .where('pending', '>', 0)
    .execute();
}

/**
 * A capture / refund / void is settled: if its outcome had been marked unknown (by anyone:
 * the row says, not the caller's copy), its sale (and a linked source payment's sale) has
 * one pending call less. Inside the
 * recording transaction.
 */
export async function settlePendingAction(trx: Tx, call: GatewayCall, now: Date): Promise<void> {
  for (const id of salesOfAction(call)) {
    await trx
      .updateTable('sales')
      .set((eb) => ({ pending: eb('pending', '-', 1), updated_at: now.toISOString() }))
      .where('id', '=', id)
      .where('pending', '>', 0)
      .where((eb) => eb.exists(eb.selectFrom('gateway_calls').select('id').where('id', '=', call.id).where('unknown_since', 'is not', null)))
      .execute();
  }
}

/** A failure that leaves nothing: the gateway proved it never made the payment or charge. */
export const notProcessed = { failure: NOT_PROCESSED } as const;

export async function getCall(db: Db, id: string): Promise<GatewayCall | undefined> {
  const row = await db.selectFrom('gateway_calls').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? { ...row, request: JSON.parse(row.request) as Record<string, unknown> } : undefined;
}

/** The call we made with this processor reference, if any. */
export async function findCallByReference(db: Db, reference: string): Promise<GatewayCall | undefined> {
  const row = await db.selectFrom('gateway_calls').selectAll().where('reference', '=', reference).executeTakeFirst();
  return row ? { ...row, request: JSON.parse(row.request) as Record<string, unknown> } : undefined;
}

/** The call of an Idempotency-Key binding at one step. */
export async function boundCall(db: Db, binding: string, step: number): Promise<GatewayCall | undefined> {
  const row = await db.selectFrom('gateway_calls').selectAll().where('binding', '=', binding).where('step', '=', step).executeTakeFirst();
  return row ? { ...row, request: JSON.parse(row.request) as Record<string, unknown> } : undefined;
}

/** Takes a pending call over to send it again (its claim ran out: its process died), once; false if someone else has it. */
export async function reclaimCall(db: Db, call: GatewayCall, now: Date, claimMs: number): Promise<GatewayCall | null> {
  const until = new Date(now.getTime() + claimMs).toISOString();
  const taken = await db
    .updateTable('gateway_calls')
    .set({ claimed_until: until })
    .where('id', '=', call.id)
    .where('state', '=', 'pending')
    .where('unknown_since', 'is', null)
    .where('claimed_until', '=', call.claimed_until)
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1 ? { ...call, claimed_until: until } : null;
}

/** Moves a pending call to `attention`, once: for a person (docs/operations.md). */
export async function moveToAttention(db: Db, callId: string, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const moved = await db
    .updateTable('gateway_calls')
    .set({ state: 'attention', claimed_until: null, updated_at: at })
    .where('id', '=', callId)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}
