import { type Db, type Tx } from './db';
import { type GatewayCall, salesOfAction, type SettledCall } from './gateway-calls';
import { removePendingAction } from './sale-aggregate';

// A gateway call whose outcome is unknown (it threw, timed out, or its process died
// asking) stays `pending` until a lookup or a notification proves what the gateway did.
// Meanwhile what it would have made shows as pending (payments/unknown-outcome.ts): a charge as a sale in state
// `pending` (the one the result is recorded into, so its id never changes), a capture /
// refund / void as its sale's `pending` count, a checkout payment as its transaction
// "being checked" (it takes no other payment meanwhile: domain/payment-claim.ts). Nothing is
// released: unknown is never "nothing was charged". The call's own marks (unknown, taken
// over, moved to attention) are written by gateway-calls.ts, the one writer of calls.

/**
 * A capture / refund / void is settled: if its outcome had been marked unknown (by anyone:
 * the row as the settling write returned it says, not the caller's copy), its sale (and a linked source payment's sale) has
 * one pending call less. Inside the
 * recording transaction.
 */
export async function settlePendingAction(trx: Tx, call: GatewayCall, settled: SettledCall, now: Date): Promise<void> {
  if (settled.unknown_since === null) return;
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
