import type { GatewayCallKind } from '../store/schema';
import { inTransaction } from '../store/db';
import { claimCallsToReconcile, extendClaim, type GatewayCall, postponeCheck, settleCall } from '../store/gateway-calls';
import { askGateway, type PaymentDeps, type Settled } from './ask';
import { recordChargeResult } from './charge';
import type { Gateway } from './gateway';
import { recordPayment } from './pay';
import { recordSaleActionResult } from './sale-actions';
import { recordStoredCardResult } from './store-card';
import { recordSubscriptionCharge } from './subscription-charge';

// Reconciliation of gateway calls whose answer never reached the books. Two kinds:
// - pending past its claim: the process died between asking and recording. The gateway
//   is asked by our reference what it did, and that is recorded exactly as the live
//   request would have (one sale or none: the record step settles the call once).
// - abandoned: the gateway failed or timed out and the caller was told nothing happened.
//   If the gateway acted after all, a payment or charge is reversed at the gateway (the
//   customer or merchant retried, or gave up), and a capture / refund / void is recorded
//   late (the merchant asked for it, and it happened).

const S = 1000;
/** Waits between checks of an abandoned call the gateway could not be asked about. */
const CHECK_DELAYS_MS = [10 * S, 60 * S, 5 * 60 * S, 30 * 60 * S, 2 * 60 * 60 * S, 6 * 60 * 60 * S];

/** How each kind of call is recorded once its gateway has said what it did. */
const RECORDERS: Record<GatewayCallKind, (deps: PaymentDeps, call: GatewayCall, s: Settled) => Promise<unknown>> = {
  pay: recordPayment,
  charge: recordChargeResult,
  store: recordStoredCardResult,
  capture: recordSaleActionResult,
  refund: recordSaleActionResult,
  void: recordSaleActionResult,
  subscription: recordSubscriptionCharge,
};

/** What happened to an abandoned call the gateway did carry out after all. */
async function undoLate(deps: PaymentDeps, gateway: Gateway, call: GatewayCall, reference: string): Promise<boolean> {
  switch (call.kind) {
    case 'capture':
    case 'refund':
    case 'void':
      return (await recordSaleActionResult(deps, call, { status: 'succeeded', reference, card: null }, 'abandoned')) !== null;
    case 'store':
      // Nothing was stored on our side and nothing was charged: the gateway's copy is never used.
      return true;
    case 'pay':
    case 'charge':
    case 'subscription': {
      const reverse = call.kind === 'pay' && call.request.hold === true ? gateway.void : gateway.refund;
      const answer = await askGateway(deps, gateway, (signal) =>
        reverse.call(gateway, { reference: `${call.reference}_reversal`, signal, payment: reference, amount: call.amount }),
      );
      return answer.kind === 'answered' && answer.value.ok;
    }
  }
}

async function reconcileOne(deps: PaymentDeps, call: GatewayCall): Promise<void> {
  const db = deps.database.db;
  const gateway = deps.gateways.find(call.gateway_id);
  const answer = gateway ? await askGateway(deps, gateway, (signal) => gateway.lookup({ reference: call.reference, signal })) : null;
  const now = deps.now();
  if (!gateway || !answer || answer.kind === 'lost') {
    // Asked again later; an abandoned call is given up on (and logged for a person) when the delays run out.
    const delay = CHECK_DELAYS_MS[Math.min(call.checks, CHECK_DELAYS_MS.length - 1)]!;
    if (call.state === 'pending') return extendClaim(db, call.id, new Date(now.getTime() + delay));
    const next = CHECK_DELAYS_MS[call.checks];
    if (next === undefined) deps.log.error({ call: call.id, reference: call.reference }, 'gateway call left unreconciled: check it with the gateway');
    return postponeCheck(db, call.id, next === undefined ? null : new Date(now.getTime() + next), now);
  }
  const found = answer.value;
  const settled: Settled = found.status === 'not_found' ? { status: 'failed', reason: 'refused', card: null } : found;
  if (call.state === 'pending') {
    await RECORDERS[call.kind](deps, call, settled);
    deps.log.info({ call: call.id, kind: call.kind, gateway_status: found.status }, 'gateway call reconciled');
    return;
  }
  if (settled.status === 'failed') {
    await inTransaction(db, (trx) => settleCall(trx, call.id, ['abandoned'], 'failed', now));
    return;
  }
  if (await undoLate(deps, gateway, call, settled.reference)) {
    // A late capture / refund / void settled the call itself when it recorded it.
    await inTransaction(db, (trx) => settleCall(trx, call.id, ['abandoned'], 'reversed', now));
    deps.log.warn({ call: call.id, kind: call.kind }, 'abandoned gateway call had been carried out: undone or recorded');
  } else {
    await postponeCheck(db, call.id, new Date(now.getTime() + CHECK_DELAYS_MS[0]!), now);
  }
}

/** One round: claims due calls and reconciles each; resolves with how many it took. */
export async function reconcileCalls(deps: PaymentDeps, limit = 20): Promise<number> {
  const calls = await claimCallsToReconcile(deps.database.db, deps.now(), deps.config.paymentClaimMs, limit);
  for (const call of calls) await reconcileOne(deps, call);
  return calls.length;
}
