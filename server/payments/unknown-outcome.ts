import { uuidv7 } from '../domain/ids';
import { type Db, inTransaction } from '../store/db';
import { type GatewayCall, markUnknown, nameCallResult, salesOfAction } from '../store/gateway-calls';
import { insertAuthorization } from '../store/authorizations';
import { cardlessAuthorization, getAuthorization } from '../store/sales';
import { addPendingActions, insertSales } from '../store/sale-aggregate';
import { touchTransaction } from '../store/transaction-aggregate';
import { chargeSale } from './charge-record';

// A gateway call whose outcome is unknown (it threw, timed out, or its process died
// asking) stays `pending` until a lookup or a notification proves what the gateway did.
// Meanwhile what it would have made shows as pending: a charge as a sale in state
// `pending` (the one the result is recorded into, so its id never changes), a store as a
// `pending` authorization (its id chosen at reservation), a capture / refund / void as its
// sale's `pending` count, a checkout payment as its transaction "being checked" (it takes
// no other payment meanwhile). Nothing is released: unknown is never "nothing was charged".

/**
 * Marks a pending call's outcome unknown, once, claimed until `claimedUntil` (now: due for
 * reconciliation at once), with what it shows meanwhile; null when another process
 * settled or marked it first.
 */
export function markOutcomeUnknown(db: Db, call: GatewayCall, now: Date, claimedUntil = now): Promise<GatewayCall | null> {
  return inTransaction(db, async (trx) => {
    if (!(await markUnknown(trx, call.id, now, claimedUntil))) return null;
    let resultId = call.result_id;
    if (call.kind === 'charge') {
      const card = (await getAuthorization(trx, null, call.subject_id))!;
      const sale = chargeSale(call, card, uuidv7(now.getTime()), now);
      await insertSales(trx, [sale]);
      await nameCallResult(trx, call.id, { result_id: sale.id });
      resultId = sale.id;
    } else if (call.kind === 'store' && !(await getAuthorization(trx, null, call.subject_id))) {
      // Its id chosen at reservation, so the store's answer fills this one. A challenge's resumed
      // store (store-challenge.ts) has its authorization already, waiting as `requires_action`.
      const row = cardlessAuthorization({
        id: call.subject_id,
        environment_id: call.environment_id,
        gateway_id: call.gateway_id,
        gateway_account: call.gateway_account,
        notify_url: (call.request.notify_url as string | null | undefined) ?? null,
        created_at: call.created_at,
        updated_at: now.toISOString(),
      });
      await insertAuthorization(trx, row);
    } else if (call.kind === 'pay') {
      // The payment page now shows the payment being checked: its kept copy must go.
      await touchTransaction(trx, call.subject_id, now);
    } else if (call.kind === 'capture' || call.kind === 'refund' || call.kind === 'void') {
      await addPendingActions(trx, salesOfAction(call), now);
    }
    return { ...call, unknown_since: now.toISOString(), claimed_until: claimedUntil.toISOString(), result_id: resultId };
  });
}
