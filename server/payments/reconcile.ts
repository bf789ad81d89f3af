import { inTransaction } from '../store/db';
import { claimCallsToReconcile, extendClaim, type GatewayCall, postponeCheck, settleCall } from '../store/gateway-calls';
import { askGateway, type PaymentDeps, type Settled } from './ask';
import { CALL_KINDS } from './call-kinds';
import { type Gateway, GatewayAttention, GatewayNotificationOnly, type LookupInput } from './gateway';
import { recordSafely, toAttention } from './outcome';
import { REDIRECT_WAIT_MS } from './redirect';
import { markOutcomeUnknown } from './unknown-outcome';

// Reconciliation of gateway calls whose answer never reached the books:
// - pending past its claim: its outcome is unknown (the gateway did not answer, or the
//   process died between asking and recording). It is marked so (a payment or charge
//   shows as a `pending` sale) and the gateway is asked by our reference what it did,
//   which is recorded exactly as the live request would have (one sale or none: the
//   record step settles the call once). A `not_found` is not believed at once (a
//   processor may act late): it is asked again with backoff over the settle window
//   (PAYMENT_SETTLE_WINDOW_MS), and only then is the call failed. A gateway that cannot
//   be asked within the window, or can neither be looked up nor notify, sends the call
//   to `attention`, for a person. A call only the processor's notification can tell
//   (`GatewayNotificationOnly`) waits for it through the customer's time on the
//   processor's page, then fails as a `not_found` would then (awaitNotification).
// - abandoned (made before unknown outcomes were kept pending, or a redirect the customer
//   left for another attempt): the caller was told it failed. If the gateway acted after
//   all, a payment or charge is reversed at the gateway, and a capture / refund / void is
//   recorded late. One only a notification can tell is not checked again.

const S = 1000;
/** Waits between lookups of a call of unknown outcome: the first within a minute. */
const RECHECK_DELAYS_MS = [10 * S, 20 * S, 30 * S, 60 * S, 2 * 60 * S, 5 * 60 * S];
/** Waits between checks of an abandoned call the gateway could not be asked about. */
const CHECK_DELAYS_MS = [10 * S, 60 * S, 5 * 60 * S, 30 * 60 * S, 2 * 60 * 60 * S, 6 * 60 * 60 * S];

/** Records what the gateway did for a pending call (a lookup's or a notification's answer), as its kind records it (call-kinds.ts). */
export async function settleFound(deps: PaymentDeps, call: GatewayCall, settled: Settled, via: string): Promise<void> {
  const kind = CALL_KINDS[call.kind];
  const recorded = await recordSafely(deps, call, settled, () => kind.record(deps, call, settled));
  if (recorded.kind !== 'recorded') return;
  deps.log.info({ call: call.id, kind: call.kind, gateway_status: settled.status, via }, 'gateway call reconciled');
  await kind.proven(deps, call, settled);
}

/** What a lookup of a call is given: our reference, its kind and, when known, the processor's id (and an action's payment and amount). */
export const lookupInput = (call: GatewayCall, signal: AbortSignal, payment: string | null = null): LookupInput => ({
  reference: call.reference,
  signal,
  kind: call.kind,
  ...(call.processor_id ? { processorId: call.processor_id } : {}),
  ...(payment ? { payment, amount: call.amount } : {}),
});

/** The payment a capture, refund or void acts on (its sale's first operation's reference); null for any other call. */
const paymentOf = (deps: PaymentDeps, call: GatewayCall) => CALL_KINDS[call.kind].lookupPayment(deps, call);

async function reconcilePending(deps: PaymentDeps, found: GatewayCall): Promise<void> {
  const db = deps.database.db;
  const now = deps.now();
  // A call still unmarked belongs to a process that died asking: its outcome is unknown now.
  const call = found.unknown_since ? found : await markOutcomeUnknown(db, found, now, new Date(now.getTime() + deps.config.paymentClaimMs));
  if (!call) return;
  const gateway = (await deps.gateways.of(call.environment_id)).find(call);
  if (!gateway || (!gateway.lookup && !gateway.notification)) return toAttention(deps, call, 'the gateway can neither be looked up nor notify');
  const lookup = gateway.lookup?.bind(gateway);
  const payment = await paymentOf(deps, call);
  const answer = lookup ? await askGateway(deps, gateway, (signal) => lookup(lookupInput(call, signal, payment))) : null;
  if (answer?.kind === 'answered' && answer.value.status !== 'not_found') return settleFound(deps, call, answer.value, 'lookup');
  if (answer?.kind === 'unknown' && answer.error instanceof GatewayNotificationOnly) return awaitNotification(deps, call, now);
  // Nothing the gateway says about it can be believed, nor can it be asked again: a person must look, at once.
  if (answer?.kind === 'unknown' && answer.error instanceof GatewayAttention) return toAttention(deps, call, answer.error.message);
  const windowOver = now.getTime() >= Date.parse(call.created_at) + deps.config.paymentSettleWindowMs;
  if (answer?.kind === 'answered' && windowOver) {
    // Not found all through the settle window: the gateway never made it.
    return settleFound(deps, call, NOT_MADE, 'lookup');
  }
  // A gateway that cannot be asked is asked again through every recheck delay (about nine
  // minutes) before a person is called, even past the window: a redirect's first lookup
  // comes after the customer's wait, when the window counted from the call is already over,
  // and one outage at that moment would otherwise need a person.
  const everyRecheck = call.checks >= RECHECK_DELAYS_MS.length;
  if (answer?.kind !== 'answered' && everyRecheck && windowOver) {
    return toAttention(deps, call, lookup ? 'the gateway could not be asked within the settle window' : 'no notification within the settle window');
  }
  const delay = RECHECK_DELAYS_MS[Math.min(call.checks, RECHECK_DELAYS_MS.length - 1)]!;
  await extendClaim(db, call.id, new Date(now.getTime() + delay));
}

/** What a call the gateway never made is recorded as. */
const NOT_MADE: Settled = { status: 'failed', reason: 'refused', card: null };

/**
 * A payment only the processor's notification can tell: while the customer may still be on
 * the processor's page it waits (the notification settles it whenever it comes, and the
 * customer's return shows it being checked); then it fails as a query's `not_found` would
 * fail it at that moment, so the transaction can be paid again, by any method. Not
 * `attention`: nothing needs a person, and a person could ask Redsys nothing the
 * notification will not say. Not `abandoned` either: there is nothing to check again, and a
 * success notified later takes the late-payment path of a failed call (notification.ts):
 * the payment if the transaction is still open, else a sale of its own, reversed.
 */
async function awaitNotification(deps: PaymentDeps, call: GatewayCall, now: Date): Promise<void> {
  const waitOver = Date.parse(call.created_at) + REDIRECT_WAIT_MS;
  if (now.getTime() < waitOver) return extendClaim(deps.database.db, call.id, new Date(waitOver));
  return settleFound(deps, call, NOT_MADE, 'no notification within the redirect wait');
}

/** A call made before unknown outcomes were kept pending: undone (a payment) or recorded late (an action). */
async function reconcileAbandoned(deps: PaymentDeps, call: GatewayCall): Promise<void> {
  const db = deps.database.db;
  const gateway = (await deps.gateways.of(call.environment_id)).find(call);
  const lookup = gateway?.lookup?.bind(gateway);
  const payment = await paymentOf(deps, call);
  const answer = gateway && lookup ? await askGateway(deps, gateway, (signal) => lookup(lookupInput(call, signal, payment))) : null;
  const now = deps.now();
  // Nothing to ask again: only its notification can tell, and one that brings a success reverses it (notification.ts).
  if (answer?.kind === 'unknown' && answer.error instanceof GatewayNotificationOnly) return postponeCheck(db, call.id, null, now);
  if (!gateway || !answer || answer.kind !== 'answered') {
    // Asked again later; given up on (and logged for a person) when the delays run out.
    const next = CHECK_DELAYS_MS[call.checks];
    if (next === undefined) deps.log.error({ call: call.id, reference: call.reference }, 'gateway call left unreconciled: check it with the gateway');
    return postponeCheck(db, call.id, next === undefined ? null : new Date(now.getTime() + next), now);
  }
  const found = answer.value;
  if (found.status !== 'succeeded') {
    await inTransaction(db, (trx) => settleCall(trx, call.id, ['abandoned'], 'failed', now));
    return;
  }
  if (!(await undoAbandoned(deps, gateway, call, found.reference))) await postponeCheck(db, call.id, new Date(now.getTime() + CHECK_DELAYS_MS[0]!), now);
}

/** An abandoned call the gateway carried out after all (found by a lookup, or told by a notification): undone or recorded late; false when the gateway could not undo it yet. */
export async function undoAbandoned(deps: PaymentDeps, gateway: Gateway, call: GatewayCall, reference: string): Promise<boolean> {
  if (!(await CALL_KINDS[call.kind].undo(deps, gateway, call, reference))) return false;
  // A late capture / refund / void settled the call itself when it recorded it.
  await inTransaction(deps.database.db, (trx) => settleCall(trx, call.id, ['abandoned'], 'reversed', deps.now()));
  deps.log.warn({ call: call.id, kind: call.kind }, 'abandoned gateway call had been carried out: undone or recorded');
  return true;
}

/** One round: claims due calls and reconciles each; resolves with how many it took. */
export async function reconcileCalls(deps: PaymentDeps, limit = 20): Promise<number> {
  const calls = await claimCallsToReconcile(deps.database.db, deps.now(), deps.config.paymentClaimMs, limit);
  for (const call of calls) {
    if (call.state === 'pending') await reconcilePending(deps, call);
    else await reconcileAbandoned(deps, call);
  }
  return calls.length;
}
