import { claimPaymentAttempt, completePayment, releaseFailedAttempt } from '../store/payments';
import { newCall, type GatewayCall } from '../store/gateway-calls';
import type { Transaction } from '../store/transactions';
import { askGateway, type PaymentDeps, type Settled, timedOut } from './ask';
import type { Gateway } from './gateway';

// Paying a transaction from the checkout, and settling a redirect gateway's return (the
// same call, with the provider's decision among the fields): reserve the attempt with a
// conditional write, ask the gateway outside any database transaction, record the answer.

export type PaymentOutcome =
  | { kind: 'paid' }
  | { kind: 'declined'; reason: 'declined' | 'insufficient_funds' }
  /** The gateway failed or did not answer in time: nothing recorded, the attempt released. */
  | { kind: 'gateway_failed'; timedOut: boolean }
  /** Someone else is paying, the transaction moved on, or too many declines: not attempted. */
  | { kind: 'not_claimed' };

export async function payTransaction(
  deps: PaymentDeps,
  p: { transaction: Transaction; gateway: Gateway; fields: Record<string, string> },
): Promise<PaymentOutcome> {
  const { transaction: row, gateway } = p;
  const now = deps.now();
  const hold = row.authorize;
  const call = newCall({
    environmentId: row.environment_id,
    gatewayId: gateway.id,
    kind: 'pay',
    subjectId: row.id,
    amount: row.total_price,
    currency: row.currency,
    request: { hold },
    now,
    claimMs: deps.config.paymentClaimMs,
  });
  if (!(await claimPaymentAttempt(deps.database.db, call, now))) return { kind: 'not_claimed' };
  const answer = await askGateway(deps, gateway, (signal) =>
    gateway.pay({ reference: call.reference, signal, amount: row.total_price, currency: row.currency, capture: !hold, fields: p.fields }),
  );
  if (answer.kind === 'lost' || answer.value.outcome === 'redirect') {
    await releaseFailedAttempt(
      deps.database.db,
      { transactionId: row.id, gatewayId: gateway.id, outcome: 'declined', cardBrand: null, cardLast4: null, callId: call.id, state: 'abandoned' },
      deps.now(),
    );
    return { kind: 'gateway_failed', timedOut: timedOut(answer) };
  }
  const result = answer.value;
  const settled: Settled =
    result.outcome === 'approved'
      ? { status: 'succeeded', reference: result.reference, card: result.card }
      : { status: 'failed', reason: result.outcome, card: result.card };
  await recordPayment(deps, call, settled);
  if (result.outcome === 'approved') {
    deps.log.info({ transaction: row.id, gateway: gateway.code, brand: result.card?.brand ?? null }, 'payment approved');
    return { kind: 'paid' };
  }
  return { kind: 'declined', reason: result.outcome };
}

/** Records what the gateway did for a pay call: from the live request, or from reconciliation. */
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
    await releaseFailedAttempt(db, { ...attempt, outcome, state: 'failed' }, now);
    return;
  }
  await completePayment(
    db,
    {
      ...attempt,
      outcome: 'approved',
      environmentId: call.environment_id,
      currency: call.currency,
      amount: call.amount,
      hold: call.request.hold === true,
      gatewayReference: s.reference,
      card: s.card ? { expMonth: s.card.expMonth, expYear: s.card.expYear } : null,
    },
    now,
    deps.outbox,
  );
}
