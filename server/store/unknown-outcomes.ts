import { type Db, type Tx } from './db';
import { type GatewayCall, salesOfAction } from './gateway-calls';
import { removePendingAction } from './sale-aggregate';

// A gateway call whose outcome is unknown (it threw, timed out, or its process died
// asking) stays `pending` until a lookup or a notification proves what the gateway did.
// Meanwhile what it would have made shows as pending (payments/unknown-outcome.ts): a charge as a sale in state
// `pending` (the one the result is recorded into, so its id never changes), a capture /
// refund / void as its sale's `pending` count, a checkout payment as its transaction
// "being checked" (it takes no other payment meanwhile: domain/payment-claim.ts). Nothing is
// released: unknown is never "nothing was charged".

/**
 * Marks a pending call's outcome unknown, once, claimed until `until`; false when another
 * process settled or marked it first.
 */
export async function markUnknown(trx: Tx, callId: string, now: Date, until: Date): Promise<boolean> {
  const at = now.toISOString();
  const marked = await trx
    .updateTable('gateway_calls')
    .set({ unknown_since: at, claimed_until: until.toISOString(), updated_at: at })
    .where('id', '=', callId)
    .where('state', '=', 'pending')
    .where('unknown_since', 'is', null)
    .executeTakeFirst();
  return Number(marked.numUpdatedRows) === 1;
}

/** The object a call of unknown outcome shows as pending (a charge's sale), named on the call. */
export async function setCallResult(trx: Tx, callId: string, resultId: string): Promise<void> {
  await trx.updateTable('gateway_calls').set({ result_id: resultId }).where('id', '=', callId).execute();
}

/**
 * A capture / refund / void is settled: if its outcome had been marked unknown (by anyone:
 * the row says, not the caller's copy), its sale (and a linked source payment's sale) has
 * one pending call less. Inside the
 * recording transaction.
 */
export async function settlePendingAction(trx: Tx, call: GatewayCall, now: Date): Promise<void> {
  const marked = await trx.selectFrom('gateway_calls').select('unknown_since').where('id', '=', call.id).executeTakeFirst();
  if (marked?.unknown_since == null) return;
  for (const id of salesOfAction(call)) await removePendingAction(trx, id, now);
}

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
