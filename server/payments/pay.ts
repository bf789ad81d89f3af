import { openChallenge } from '../store/challenges';
import { claimPaymentAttempt, releaseFailedAttempt } from '../store/payments';
import { completePayment } from './complete-payment';
import { newCall, noteProcessorId, type GatewayCall } from '../store/gateway-calls';
import type { Transaction } from '../store/transactions';
import { type Answer, askGateway, type PaymentDeps, type Settled } from './ask';
import type { Gateway, PayResult } from './gateway';
import { outcomeUnknown, recordSafely } from './outcome';
import { reverseLatePayment } from './sale-actions';

// Paying a transaction from the checkout, and settling a redirect gateway's return (the
// same call, with the provider's decision among the fields): reserve the attempt with a
// conditional write, ask the gateway outside any database transaction, record the answer.
// A gateway may answer with a challenge instead (payments/challenge.ts resumes it).

export type PaymentOutcome =
  | { kind: 'paid' }
  | { kind: 'declined'; reason: 'declined' | 'insufficient_funds' }
  /** The gateway surely did nothing (it refused before acting): the attempt released. */
  | { kind: 'gateway_failed' }
  /** The outcome is unknown (no answer, or it could not be recorded yet): the payment is being checked, the transaction takes no other. */
  | { kind: 'checking' }
  /** Someone else is paying, the transaction moved on, or too many declines: not attempted. */
  | { kind: 'not_claimed' }
  /** The issuer wants the customer to authenticate first: nothing moved, the challenge is open. */
  | { kind: 'challenge'; challengeId: string };

/** What a pay call's recorded answer came to. */
export type SettledPayment = Exclude<PaymentOutcome, { kind: 'challenge' | 'not_claimed' }>;

/** A pay call of the transaction, reserved by claiming it (`claimPaymentAttempt`). */
export function payCall(deps: PaymentDeps, row: Transaction, gateway: Gateway, request: Record<string, unknown> = {}): GatewayCall {
  return newCall({
    environmentId: row.environment_id,
    gatewayId: gateway.id,
    kind: 'pay',
    subjectId: row.id,
    amount: row.total_price,
    currency: row.currency,
    request: { hold: row.authorize, ...request },
    now: deps.now(),
    claimMs: deps.config.paymentClaimMs,
  });
}

export async function payTransaction(
  deps: PaymentDeps,
  p: { transaction: Transaction; gateway: Gateway; fields: Record<string, string> },
): Promise<PaymentOutcome> {
  const { transaction: row, gateway } = p;
  const call = payCall(deps, row, gateway);
  if (!(await claimPaymentAttempt(deps.database.db, call, deps.now()))) return { kind: 'not_claimed' };
  const answer = await askGateway(deps, gateway, (signal) =>
    gateway.pay({ reference: call.reference, signal, amount: row.total_price, currency: row.currency, capture: !row.authorize, fields: p.fields }),
  );
  // A gateway that cannot resume a challenge could not have meant one: it did nothing.
  if (answer.kind === 'answered' && answer.value.outcome === 'challenge' && gateway.resume) {
    // What the processor started, for the call that resumes it to be looked up by (challenge.ts).
    if (answer.value.processorId) await noteProcessorId(deps.database.db, call.id, answer.value.processorId);
    const opened = await openChallenge(
      deps.database.db,
      { callId: call.id, environmentId: row.environment_id, transactionId: row.id, gatewayId: gateway.id, gatewayChallenge: answer.value.challenge },
      deps.now(),
    );
    return opened ? { kind: 'challenge', challengeId: opened.id } : { kind: 'checking' };
  }
  return settlePayment(deps, call, gateway, answer);
}

/** Records a pay call's answer (the first one, or a resumed challenge's) and says what came of it. */
export async function settlePayment(deps: PaymentDeps, call: GatewayCall, gateway: Gateway, answer: Answer<PayResult>): Promise<SettledPayment> {
  const transactionId = call.subject_id;
  if (answer.kind === 'unknown') {
    await outcomeUnknown(deps, call);
    return { kind: 'checking' };
  }
  if (answer.kind === 'not_acted' || answer.value.outcome === 'redirect' || answer.value.outcome === 'challenge') {
    // A gateway that surely did nothing (or wants the customer on its page) leaves nothing to reconcile.
    await releaseFailedAttempt(
      deps.database.db,
      { transactionId, gatewayId: gateway.id, outcome: 'declined', cardBrand: null, cardLast4: null, callId: call.id, state: 'failed' },
      deps.now(),
    );
    return { kind: 'gateway_failed' };
  }
  const result = answer.value;
  const authentication = result.authentication ? { authentication: result.authentication } : {};
  const settled: Settled =
    result.outcome === 'approved'
      ? { status: 'succeeded', reference: result.reference, card: result.card, ...authentication }
      : { status: 'failed', reason: result.outcome, card: result.card, ...authentication };
  const recorded = await recordSafely(deps, call, settled, () => recordPayment(deps, call, settled));
  if (recorded.kind === 'kept_pending') return { kind: 'checking' };
  // Refused by the database: the charge is reversed; to the customer, the provider failed.
  if (recorded.kind === 'attention') return { kind: 'gateway_failed' };
  if (result.outcome === 'approved') {
    deps.log.info({ transaction: transactionId, gateway: gateway.code, brand: result.card?.brand ?? null }, 'payment approved');
    return { kind: 'paid' };
  }
  return { kind: 'declined', reason: result.outcome };
}

/**
 * Records what the gateway did for a pay call: from the live request, from reconciliation,
 * or from a notification (also one that arrives after the settle window failed the call).
 * A success for a transaction that moved on meanwhile (paid by another attempt, cancelled,
 * expired) is never kept silently: it is recorded as a sale of its own naming the
 * transaction, with `sale.late_payment`, and reversed at the gateway by the sale's own
 * refund (or void, for a hold), so its operations show the payment and its reversal.
 */
export async function recordPayment(deps: PaymentDeps, call: GatewayCall, s: Settled): Promise<void> {
  const db = deps.database.db;
  const now = deps.now();
  const attempt = {
    transactionId: call.subject_id,
    gatewayId: call.gateway_id,
    cardBrand: s.card?.brand ?? null,
    cardLast4: s.card?.last4 ?? null,
    callId: call.id,
  };
  if (s.status === 'failed') {
    const outcome = s.reason === 'insufficient_funds' ? 'insufficient_funds' : 'declined';
    await releaseFailedAttempt(db, { ...attempt, outcome, state: 'failed', wasUnknown: call.unknown_since !== null }, now);
    return;
  }
  const done = await completePayment(
    db,
    {
      ...attempt,
      outcome: 'approved',
      callState: call.state === 'failed' ? 'failed' : 'pending',
      environmentId: call.environment_id,
      currency: call.currency,
      amount: call.amount,
      hold: call.request.hold === true,
      gatewayReference: s.reference,
      card: s.card ? { expMonth: s.card.expMonth, expYear: s.card.expYear } : null,
      authentication: s.authentication ?? null,
    },
    now,
    deps.outbox,
  );
  if (done.kind === 'late') await reverseLatePayment(deps, done.sale);
}
