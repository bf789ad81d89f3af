import { uuidv7 } from '../domain/ids';
import type { SaleAction } from '../domain/sales';
import { insertAuthorization } from '../store/authorizations';
import { inTransaction, type Tx } from '../store/db';
import { type GatewayCall, nameCallResult, salesOfAction, settleCall } from '../store/gateway-calls';
import { addPendingActions, insertSales } from '../store/sale-aggregate';
import { releaseFailedAttempt } from '../store/payments';
import { cardlessAuthorization, getAuthorization, paymentReference, settleCallOnly } from '../store/sales';
import type { GatewayCallKind } from '../store/schema';
import { touchTransaction } from '../store/transaction-aggregate';
import { type Answer, askGateway, type PaymentDeps, type Settled } from './ask';
import { recordChargeResult } from './charge';
import { chargeSale } from './charge-record';
import type { CallContext, Gateway, GatewayNotification, PayInput, StoreInput, StoringGateway } from './gateway';
import { applyNotification } from './notification';
import { reverseAtGateway } from './outcome';
import { pageLanguageOf } from './page-language';
import { recordPayment } from './pay';
import { settleFound } from './reconcile';
import { releaseSaleAction } from './sale-reservations';
import { recordSaleActionResult } from './send-action';
import { signUpAwaiting } from './signup-card';
import { failStoredCard, recordStoredCardResult } from './store-card';
import { applyStoreNotification } from './store-notification';
import { recordSubscriptionCharge } from './subscription-charge';

// What each kind of gateway call does where the steps of a money movement differ by kind:
// how it is sent, what it shows while its outcome is unknown, how a proven answer is
// recorded, how what it made is undone, what a late success or a processor's notification
// does. Each kind's use case (pay.ts, charge.ts, store-card.ts, send-action.ts,
// subscription-charge.ts) reserves its call, sends it through `send` here, releases it
// through `release` when the gateway surely did nothing, and records the answer;
// unknown-outcome.ts, outcome.ts, reconcile.ts, notification.ts and processor-events.ts
// look the kind up here too. `CALL_KINDS` maps every `GatewayCallKind`: a new kind does not
// compile until it has every behaviour below.

/**
 * What a call is sent with besides what it records: a card's fields and the page's return
 * route (never stored), or the saved card's processor reference (its authorization's).
 */
interface SendExtras {
  pay: Pick<PayInput, 'fields' | 'returnUrl' | 'language'>;
  charge: { method: string };
  subscription: { method: string };
  store: Omit<StoreInput, keyof CallContext>;
  capture: null;
  refund: null;
  void: null;
}

/** The gateway method each kind is sent by. */
interface SentBy {
  pay: 'pay';
  charge: 'charge';
  subscription: 'charge';
  store: 'store';
  capture: 'capture';
  refund: 'refund';
  void: 'void';
}

/** A store is sent only to a gateway that saves cards. */
type GatewayOf<K extends GatewayCallKind> = K extends 'store' ? StoringGateway : Gateway;

/** What a kind's gateway method answered, through `askGateway`. */
type SendAnswer<K extends GatewayCallKind> = Answer<Awaited<ReturnType<StoringGateway[SentBy[K]]>>>;

type Succeeded = Extract<Settled, { status: 'succeeded' }>;

/** How a kind of gateway call is handled wherever the shared steps differ by kind. */
export interface CallKind<K extends GatewayCallKind = GatewayCallKind> {
  /**
   * Asks the gateway (outside any database transaction, bounded by the gateway timeout) to
   * do what the reserved call records: its reference, amount and currency, and whether a
   * payment is held, with `extras`. The same reference every time: a call sent again (its
   * process died) cannot be done twice.
   */
  send(deps: PaymentDeps, gateway: GatewayOf<K>, call: GatewayCall, extras: SendExtras[K]): Promise<SendAnswer<K>>;
  /**
   * What it shows while its outcome is unknown, written in the transaction that marks it
   * so (unknown-outcome.ts); resolves with the call's result id then (a charge's pending
   * sale, made now for its answer to fill).
   */
  showWhileUnknown(trx: Tx, call: GatewayCall, now: Date): Promise<string | null>;
  /** The payment a lookup of it names (reconcile.ts); null when it acts on none. */
  lookupPayment(deps: PaymentDeps, call: GatewayCall): Promise<string | null>;
  /** Records what its gateway did, proven by a lookup or a notification (reconcile.ts). */
  record(deps: PaymentDeps, call: GatewayCall, settled: Settled): Promise<unknown>;
  /** What follows such a proven answer once recorded (reconcile.ts). */
  proven(deps: PaymentDeps, call: GatewayCall, settled: Settled): Promise<void>;
  /**
   * Ends it when its gateway surely did nothing (`not_acted`, or an answer that cannot be
   * followed): what it reserved is released at once, with nothing to reconcile. Called by
   * the use case that sent it.
   */
  release(deps: PaymentDeps, call: GatewayCall): Promise<unknown>;
  /** The gateway action that undoes what it made (outcome.ts `reverseAtGateway`); null when it is not undone. */
  reversal(call: GatewayCall): 'void' | 'refund' | null;
  /** An abandoned call the gateway carried out after all: undone or recorded late; false when the gateway could not undo it yet (reconcile.ts). */
  undo(deps: PaymentDeps, gateway: Gateway, call: GatewayCall, reference: string): Promise<boolean>;
  /** A success notified after the settle window failed the call (notification.ts). */
  lateSuccess(deps: PaymentDeps, gateway: Gateway, call: GatewayCall, late: Succeeded): Promise<void>;
  /** A processor's payment notification of it (processor-events.ts); null: no such notification is ours, it goes to attention. */
  processorNotification: ((deps: PaymentDeps, gateway: Gateway, call: GatewayCall, note: GatewayNotification) => Promise<void>) | null;
}

/** A saved card charged by the merchant (a charge, or a subscription's renewal). */
const sendCharge = (deps: PaymentDeps, gateway: Gateway, call: GatewayCall, { method }: { method: string }) =>
  askGateway(deps, gateway, (signal) => gateway.charge({ reference: call.reference, signal, method, amount: call.amount, currency: call.currency, initiator: 'merchant' }));

const nothingShown = (_trx: Tx, call: GatewayCall): Promise<string | null> => Promise.resolve(call.result_id);
const noPayment = (): Promise<string | null> => Promise.resolve(null);
const nothingMore = (): Promise<void> => Promise.resolve();

/** A charge shows as a sale in state `pending`: the one its result is recorded into, so its id never changes. */
async function showPendingSale(trx: Tx, call: GatewayCall, now: Date): Promise<string | null> {
  const card = (await getAuthorization(trx, null, call.subject_id))!;
  const sale = chargeSale(call, card, uuidv7(now.getTime()), now);
  await insertSales(trx, [sale]);
  await nameCallResult(trx, call.id, { result_id: sale.id });
  return sale.id;
}

/**
 * A store shows as a `pending` authorization, its id chosen at reservation so the store's
 * answer fills this one. A challenge's resumed store (store-challenge.ts) has its
 * authorization already, waiting as `requires_action`.
 */
async function showPendingAuthorization(trx: Tx, call: GatewayCall, now: Date): Promise<string | null> {
  if (await getAuthorization(trx, null, call.subject_id)) return call.result_id;
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
  return call.result_id;
}

/** A checkout payment shows its transaction "being checked": the payment page's kept copy must go. */
async function showBeingChecked(trx: Tx, call: GatewayCall, now: Date): Promise<string | null> {
  await touchTransaction(trx, call.subject_id, now);
  return call.result_id;
}

/** A card proven saved after its customer's return lost the answer: the sign-up waiting for it starts, as the return would have started it (once: signup-card.ts). */
async function signUpWithProven(deps: PaymentDeps, call: GatewayCall, settled: Settled): Promise<void> {
  if (settled.status !== 'succeeded') return;
  const authorization = await getAuthorization(deps.database.db, null, call.subject_id);
  if (authorization) await signUpAwaiting(deps, authorization);
}

/** Made after all, after the settle window had failed it: recorded (a charge reversed, a payment if its transaction moved on). */
const recordLate = (deps: PaymentDeps, _gateway: Gateway, call: GatewayCall, late: Succeeded): Promise<void> => settleFound(deps, call, late, 'notification');

/** A subscription's attempt made after all is reversed: its period was charged again by a new attempt. */
async function reverseLateAttempt(deps: PaymentDeps, gateway: Gateway, call: GatewayCall, late: Succeeded): Promise<void> {
  if (!(await reverseAtGateway(deps, gateway, call, late.reference))) {
    deps.log.error({ call: call.id, reference: call.reference }, 'late subscription charge not reversed: refund it at the gateway');
    return;
  }
  await inTransaction(deps.database.db, (trx) => settleCall(trx, call.id, ['failed'], 'reversed', deps.now()));
}

/**
 * Capture, refund and void share one shape: they move a sale's amounts, show as its
 * `pending` count while unknown, are looked up by the payment they act on, and are never
 * undone (they are what the merchant asked for): one carried out after all is recorded late.
 */
const SALE_ACTION: CallKind<SaleAction> = {
  // On the payment the action applies to, recorded with the call.
  send: (deps, gateway, call) =>
    askGateway(deps, gateway, (signal) => gateway[call.kind as SaleAction]({ reference: call.reference, signal, payment: String(call.request.payment ?? ''), amount: call.amount })),
  async showWhileUnknown(trx, call, now) {
    await addPendingActions(trx, salesOfAction(call), now);
    return call.result_id;
  },
  lookupPayment: (deps, call) => paymentReference(deps.database.db, call.subject_id),
  record: recordSaleActionResult,
  proven: nothingMore,
  release: (deps, call) => releaseSaleAction(deps.database.db, { call, action: call.kind as SaleAction, state: 'failed', now: deps.now(), outbox: deps.outbox }),
  reversal: () => null,
  undo: async (deps, _gateway, call, reference) => (await recordSaleActionResult(deps, call, { status: 'succeeded', reference, card: null }, 'abandoned')) !== null,
  lateSuccess: nothingMore,
  processorNotification: null,
};

export const CALL_KINDS: { [K in GatewayCallKind]: CallKind<K> } = {
  pay: {
    // Held unless the transaction captures at once (`hold`, recorded with the call).
    send: (deps, gateway, call, page) =>
      askGateway(deps, gateway, (signal) => gateway.pay({ reference: call.reference, signal, amount: call.amount, currency: call.currency, capture: call.request.hold !== true, ...page })),
    showWhileUnknown: showBeingChecked,
    lookupPayment: noPayment,
    record: recordPayment,
    proven: nothingMore,
    // The attempt ends declined and the transaction stays open for another.
    release: (deps, call) =>
      releaseFailedAttempt(
        deps.database.db,
        { transactionId: call.subject_id, gatewayId: call.gateway_id, outcome: 'declined', cardBrand: null, cardLast4: null, language: pageLanguageOf(call), callId: call.id, state: 'failed' },
        deps.now(),
      ),
    // A hold is voided, a captured payment refunded.
    reversal: (call) => (call.request.hold === true ? 'void' : 'refund'),
    // A payment or charge made after all is undone at the gateway.
    undo: reverseAtGateway,
    lateSuccess: recordLate,
    processorNotification: applyNotification,
  },
  charge: {
    send: sendCharge,
    showWhileUnknown: showPendingSale,
    lookupPayment: noPayment,
    record: recordChargeResult,
    proven: nothingMore,
    // No sale was shown for it yet: the call alone ends.
    release: (deps, call) => settleCallOnly(deps.database.db, call.id, 'failed', deps.now()),
    reversal: () => 'refund',
    undo: reverseAtGateway,
    lateSuccess: recordLate,
    processorNotification: null,
  },
  store: {
    send: (deps, gateway, call, input) => askGateway(deps, gateway, (signal) => gateway.store({ reference: call.reference, signal, ...input })),
    showWhileUnknown: showPendingAuthorization,
    lookupPayment: noPayment,
    record: recordStoredCardResult,
    proven: signUpWithProven,
    release: (deps, call) => failStoredCard(deps.database.db, call, deps.now(), deps.outbox),
    reversal: () => null,
    // Nothing was stored on our side and nothing was charged: the gateway's copy is never used.
    undo: () => Promise.resolve(true),
    lateSuccess: nothingMore,
    // A card saved on the processor's page (Redsys): its notification answers the save's challenge.
    processorNotification: applyStoreNotification,
  },
  capture: SALE_ACTION,
  refund: SALE_ACTION,
  void: SALE_ACTION,
  subscription: {
    send: sendCharge,
    showWhileUnknown: nothingShown,
    lookupPayment: noPayment,
    record: recordSubscriptionCharge,
    proven: nothingMore,
    // As a lookup that finds nothing: the period is due again at once.
    release: (deps, call) => recordSubscriptionCharge(deps, call, { status: 'failed', reason: 'refused', card: null }),
    reversal: () => 'refund',
    undo: reverseAtGateway,
    lateSuccess: reverseLateAttempt,
    processorNotification: null,
  },
};
