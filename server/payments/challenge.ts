import type { PaymentChallengeRow } from '../store/schema';
import { closeChallenge } from '../store/challenges';
import { challengeProcessorId } from '../store/gateway-calls';
import { claimPaymentAttempt } from '../store/payments';
import type { Transaction } from '../store/transactions';
import { askGateway, type PaymentDeps } from './ask';
import type { ChallengeAnswer, Gateway } from './gateway';
import { payCall, type PaymentOutcome, settlePayment } from './pay';

// The second half of a challenged payment: the customer answered the issuer's challenge
// (or left it). Answering claims the transaction like any payment attempt, with a pay
// call of its own (so a lost answer is reconciled like a payment), and takes the
// challenge in the same write: of two answers, one is sent.

export type ChallengeOutcome =
  | Exclude<PaymentOutcome, { kind: 'challenge' }>
  /** The customer left the challenge: nothing moved, the payment stays open. */
  | { kind: 'abandoned' };

export async function answerChallenge(
  deps: PaymentDeps,
  /** `language`: the challenge page's, kept for the attempt its answer records (page-language.ts). */
  p: { transaction: Transaction; challenge: PaymentChallengeRow; answer: ChallengeAnswer | 'abandoned'; language?: string },
): Promise<ChallengeOutcome> {
  const { transaction: row, challenge } = p;
  const db = deps.database.db;
  if (p.answer === 'abandoned') {
    return (await closeChallenge(db, challenge.id, 'abandoned', deps.now())) ? { kind: 'abandoned' } : { kind: 'not_claimed' };
  }
  const gateway: Gateway | undefined = (await deps.gateways.of(row.environment_id)).find(challenge);
  const resume = gateway?.resume?.bind(gateway);
  if (!gateway || !resume) return { kind: 'gateway_failed' };
  // The processor's id of the payment the challenge's pay call started, for a lookup of this one.
  const started = await challengeProcessorId(db, { kind: 'pay', subjectId: row.id, gatewayId: gateway.id, openedAt: challenge.created_at });
  const call = { ...payCall(deps, row, gateway, { challenge: challenge.id, language: p.language }), processor_id: started };
  if (!(await claimPaymentAttempt(db, call, deps.now(), challenge.id))) return { kind: 'not_claimed' };
  const answer = p.answer;
  const asked = await askGateway(deps, gateway, (signal) => resume({ reference: call.reference, signal, challenge: challenge.gateway_challenge, answer }));
  const outcome = await settlePayment(deps, call, gateway, asked);
  // A resumed payment whose outcome is unknown is proven like any other (reconcile.ts); its challenge is over.
  await closeChallenge(db, challenge.id, outcome.kind === 'paid' ? 'completed' : 'failed', deps.now());
  return outcome;
}
