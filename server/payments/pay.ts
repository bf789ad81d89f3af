import { openChallenge } from '../store/challenges';
import { claimPaymentAttempt, releaseFailedAttempt } from '../store/payments';
import { type CompleteOutcome, completePayment, type PaidRecord } from './complete-payment';
import { newCall, noteProcessorId, type GatewayCall } from '../store/gateway-calls';
import type { Transaction } from '../store/transactions';
import { type Answer, type PaymentDeps, type Settled } from './ask';
import type { Gateway, PayResult } from './gateway';
import { outcomeUnknown, recordSafely } from './outcome';
import { awaitHostedFields, followRedirect, type HostedFields, leaveOpenRedirects, type Redirected } from './redirect';
import { challengeByRedirect } from './redirect-challenge';
import { CALL_KINDS } from './call-kinds';
import { readProcessorSettlement } from './processor-settlement';
import { pageLanguageOf } from './page-language';
import { reverseLatePayment } from './sale-actions';

// Paying a transaction from the checkout: reserve the attempt with a conditional write, ask
// the gateway outside any database transaction, record the answer. A gateway may answer
// with a challenge instead (payments/challenge.ts resumes it), or send the customer to the
// processor's page (payments/redirect.ts settles the call from its return).

export type PaymentOutcome =
  /** `recorded`: what this request wrote (absent when another process recorded it). */
  | { kind: 'paid'; recorded?: PaidRecord }
  | { kind: 'declined'; reason: 'declined' | 'insufficient_funds' }
  /** The gateway surely did nothing (it refused before acting): the attempt released. */
  | { kind: 'gateway_failed' }
  /** The outcome is unknown (no answer, or it could not be recorded yet): the payment is being checked, the transaction takes no other. */
  | { kind: 'checking' }
  /** Someone else is paying, the transaction moved on, or too many declines: not attempted. */
  | { kind: 'not_claimed' }
  /** The issuer wants the customer to authenticate first: nothing moved, the challenge is open. */
  | { kind: 'challenge'; challengeId: string }
  /** The customer goes to the processor's page (a declared origin); the call stays open until its return. */
  | Redirected
  /** The processor's script in the page confirms the payment with `secret`, then the customer comes back to `returnUrl`; the call stays open until then. */
  | HostedFields;

/** What a pay call's recorded answer came to. */
export type SettledPayment = Exclude<PaymentOutcome, { kind: 'challenge' | 'not_claimed' | 'redirect' | 'hosted_fields' }>;

/** A pay call of the transaction, reserved by claiming it (`claimPaymentAttempt`). */
export function payCall(deps: PaymentDeps, row: Transaction, gateway: Gateway, request: Record<string, unknown> = {}): GatewayCall {
  return newCall({
    environmentId: row.environment_id,
    gateway,
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
  p: {
    transaction: Transaction;
    gateway: Gateway;
    fields: Record<string, string>;
    /** The checkout's: this call's return route (absolute, from its reference) and the page's language. */
    page?: { returnUrl: (reference: string) => string; language: string };
  },
): Promise<PaymentOutcome> {
  const { transaction: row, gateway } = p;
  // Kept with the call, for the attempt recorded from its answer, whoever records it.
  const call = payCall(deps, row, gateway, p.page ? { language: p.page.language } : {});
  const claim = () => claimPaymentAttempt(deps.database.db, call, deps.now());
  // Refused while a redirect the customer left is open: once it is ended, the attempt may go on.
  if (!(await claim()) && !((await leaveOpenRedirects(deps, row.id, row.environment_id)) && (await claim()))) return { kind: 'not_claimed' };
  const returnUrl = p.page?.returnUrl(call.reference);
  const fromPage = p.page && returnUrl ? { returnUrl, language: p.page.language } : {};
  const answer = await CALL_KINDS.pay.send(deps, gateway, call, { fields: p.fields, ...fromPage });
  // Where the processor's page is; a redirect without one (version 1's) is not followed (settlePayment).
  if (answer.kind === 'answered' && answer.value.outcome === 'redirect' && answer.value.redirect && returnUrl) {
    return followRedirect(deps, call, gateway, answer.value, new URL(returnUrl).origin);
  }
  // The processor's fields in the page confirm it: only a gateway that reads returns can hear how it ended.
  if (answer.kind === 'answered' && answer.value.outcome === 'hosted_fields' && gateway.hostedFields && gateway.return && returnUrl) {
    return awaitHostedFields(deps, call, answer.value, returnUrl);
  }
  if (answer.kind === 'answered' && answer.value.outcome === 'redirect') {
    deps.log.warn({ call: call.id, gateway: gateway.code }, 'gateway redirect without a destination (interface version 1): not followed, nothing charged');
  }
  const challenge = answer.kind === 'answered' && answer.value.outcome === 'challenge' ? answer.value : null;
  // The issuer's own page: only a gateway that reads returns can hear how it ended.
  if (challenge?.redirect && gateway.return && returnUrl) {
    return challengeByRedirect(deps, call, gateway, { ...challenge, redirect: challenge.redirect }, new URL(returnUrl).origin);
  }
  // A gateway that cannot resume a challenge could not have meant one: it did nothing.
  if (answer.kind === 'answered' && answer.value.outcome === 'challenge' && !answer.value.redirect && gateway.resume) {
    // What the processor started, for the call that resumes it to be looked up by (challenge.ts).
    if (answer.value.processorId) await noteProcessorId(deps.database.db, call.id, answer.value.processorId);
    const opened = await openChallenge(
      deps.database.db,
      { callId: call.id, environmentId: row.environment_id, transactionId: row.id, gateway, gatewayChallenge: answer.value.challenge },
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
    await outcomeUnknown(deps, call, answer.error);
    return { kind: 'checking' };
  }
  if (answer.kind === 'not_acted' || answer.value.outcome === 'redirect' || answer.value.outcome === 'challenge' || answer.value.outcome === 'hosted_fields') {
    // A gateway that surely did nothing, that challenges where no challenge can be shown,
    // that redirects without saying where (version 1's bare redirect), or that wants its
    // fields where no page has them: nothing to reconcile.
    await CALL_KINDS.pay.release(deps, call);
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
    const done = recorded.value;
    return done?.kind === 'recorded' ? { kind: 'paid', recorded: done } : { kind: 'paid' };
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
export async function recordPayment(deps: PaymentDeps, call: GatewayCall, s: Settled): Promise<CompleteOutcome | null> {
  const db = deps.database.db;
  const now = deps.now();
  const attempt = {
    transactionId: call.subject_id,
    gatewayId: call.gateway_id,
    gatewayAccount: call.gateway_account,
    cardBrand: s.card?.brand ?? null,
    cardLast4: s.card?.last4 ?? null,
    language: pageLanguageOf(call),
    callId: call.id,
  };
  if (s.status === 'failed') {
    const outcome = s.reason === 'insufficient_funds' ? 'insufficient_funds' : 'declined';
    await releaseFailedAttempt(db, { ...attempt, outcome, state: 'failed', wasUnknown: call.unknown_since !== null }, now);
    return null;
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
  // Captured at once: what the merchant's own processor settled for it, if it does.
  else if (done.kind === 'recorded' && done.sale.captured > 0) await readProcessorSettlement(deps, done.sale);
  return done;
}
