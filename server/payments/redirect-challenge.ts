import { challengeOfCall, closeChallenge, openChallenge } from '../store/challenges';
import { awaitReturn, type GatewayCall } from '../store/gateway-calls';
import { claimPaymentAttempt } from '../store/payments';
import type { Transaction } from '../store/transactions';
import { askGateway, type PaymentDeps } from './ask';
import type { ChallengeRequired, Gateway, RedirectTo } from './gateway';
import { outcomeUnknown } from './outcome';
import { payCall, type SettledPayment, settlePayment } from './pay';
import { checkRedirect, notFollowed, type Redirected, REDIRECT_WAIT_MS, type ReturnOutcome } from './redirect';

// A challenge that is a redirect to the issuer (ChallengeRequired.redirect): the customer
// goes to the issuer's page instead of the page's own challenge dialog, and comes back to
// the pay call's return route, which hands what came back to the gateway (`return`, with
// the challenge). Like the dialog's answer (challenge.ts), the return claims the
// transaction with a pay call of its own that takes the challenge: of two returns, one is read.

/**
 * The issuer's page, checked like any redirect: the pay call ends (nothing moved) with the
 * challenge open, and with where the customer was sent, for a POST's form (checkout's go route).
 */
export async function challengeByRedirect(
  deps: PaymentDeps,
  call: GatewayCall,
  gateway: Gateway,
  answer: ChallengeRequired & { redirect: RedirectTo },
  ownOrigin: string,
): Promise<Redirected | SettledPayment> {
  const db = deps.database.db;
  const checked = checkRedirect(gateway, answer.redirect, ownOrigin);
  if ('refused' in checked) return notFollowed(deps, call, gateway, checked.refused);
  const until = new Date(deps.now().getTime() + REDIRECT_WAIT_MS);
  if (!(await awaitReturn(db, call, { processorId: answer.processorId ?? null, redirect: checked.to, until }))) return { kind: 'checking' };
  const row = call.subject_id;
  const opened = await openChallenge(
    db,
    { callId: call.id, environmentId: call.environment_id, transactionId: row, gateway, gatewayChallenge: answer.challenge },
    deps.now(),
  );
  return opened ? { kind: 'redirect', redirect: checked.to, reference: call.reference } : { kind: 'checking' };
}

/** The return of a pay call that opened a challenge by redirect; `settled_before` once answered, left or expired. */
export async function challengeReturn(
  deps: PaymentDeps,
  p: { transaction: Transaction; call: GatewayCall; gateway: Gateway; query: Record<string, string>; body: Record<string, string> },
): Promise<ReturnOutcome> {
  const db = deps.database.db;
  const read = p.gateway.return?.bind(p.gateway);
  const challenge = read && p.call.request.redirect !== undefined ? await challengeOfCall(db, p.call) : undefined;
  if (!read || !challenge) return { kind: 'settled_before' };
  // The processor's id of what the challenged payment started, for a lookup of this call.
  // The challenged call's page language goes on to the call that settles it.
  const call = { ...payCall(deps, p.transaction, p.gateway, { challenge: challenge.id, language: p.call.request.language }), processor_id: p.call.processor_id };
  if (!(await claimPaymentAttempt(db, call, deps.now(), challenge.id))) return { kind: 'settled_before' };
  const processorId = call.processor_id ? { processorId: call.processor_id } : {};
  const answer = await askGateway(deps, p.gateway, (signal) =>
    read({ reference: call.reference, signal, challenge: challenge.gateway_challenge, ...processorId, query: p.query, body: p.body }),
  );
  let outcome: SettledPayment;
  if (answer.kind === 'answered' && answer.value.outcome === 'pending') {
    await outcomeUnknown(deps, call);
    outcome = { kind: 'checking' };
  } else {
    // A return that does not verify fails the challenge: nothing moved, the customer pays again.
    outcome = await settlePayment(deps, call, p.gateway, answer.kind === 'answered' ? { kind: 'answered', value: answer.value as Exclude<typeof answer.value, { outcome: 'pending' }> } : answer);
  }
  await closeChallenge(db, challenge.id, outcome.kind === 'paid' ? 'completed' : 'failed', deps.now());
  return outcome;
}
