import { isDatabaseUnavailable } from '../store/errors';
import { type GatewayCall, moveToAttention, reclaimCall } from '../store/gateway-calls';
import { boundCall, getCall } from '../store/unknown-outcomes';
import { markOutcomeUnknown } from './unknown-outcome';
import { CALL_KINDS } from './call-kinds';
import { askGateway, type PaymentDeps, type Settled } from './ask';
import { type Gateway, GatewayAttention } from './gateway';

// The rules every money movement shares once the gateway has been asked (or was being
// asked when a process died): a keyed request rolls its step forward, an unknown outcome
// is pending until proven, and a result the database refuses is never retried blindly.

/** A keyed request's step: the Idempotency-Key binding and the step's position in the request. */
export type Bound = { binding: string; step: number } | undefined;

export const boundStep = (binding: string | null | undefined, step = 0): Bound => (binding ? { binding, step } : undefined);

export type Resume =
  /** No call yet: reserve one. */
  | { kind: 'new' }
  /** Another process is sending it right now: answer 409, try again after `retryAfterMs`. */
  | { kind: 'in_flight'; retryAfterMs: number }
  /** Its process died while sending it: send it again, same reference (the gateway acts once per reference). */
  | { kind: 'resend'; call: GatewayCall }
  /** Settled, or of unknown outcome: answer what it is now, without asking the gateway. */
  | { kind: 'current'; call: GatewayCall };

/**
 * Where the step of a keyed request stands. A retry after a crash rolls forward: it never
 * reserves a new step, so one key makes at most one gateway action per step.
 */
export async function resumeStep(deps: PaymentDeps, bound: Bound): Promise<Resume> {
  if (!bound) return { kind: 'new' };
  const db = deps.database.db;
  const call = await boundCall(db, bound.binding, bound.step);
  if (!call) return { kind: 'new' };
  if (call.state !== 'pending' || call.unknown_since !== null) return { kind: 'current', call };
  const now = deps.now();
  const claimedFor = Date.parse(call.claimed_until ?? '') - now.getTime();
  if (claimedFor > 0) return { kind: 'in_flight', retryAfterMs: claimedFor };
  const taken = await reclaimCall(db, call, now, deps.config.paymentClaimMs);
  return taken ? { kind: 'resend', call: taken } : { kind: 'in_flight', retryAfterMs: 1000 };
}

/** What starting a step gives: the gateway call to send, or the answer without sending one. */
export type Started<T> = { call: GatewayCall } | { done: T | { kind: 'in_flight'; retryAfterMs: number } };

/**
 * The gateway call a step sends: a new one `reserve` makes (or its refusal, as `done`),
 * or, for a keyed request's retry, the bound one: sent again once its dead process's
 * claim is taken over (`resend` may complete it), answered as it is now when settled
 * (`current`), a 409 while another process sends it.
 */
export async function startStep<T>(
  deps: PaymentDeps,
  bound: Bound,
  s: { reserve: () => Promise<Started<T>>; current: (call: GatewayCall) => Promise<T>; resend?: (call: GatewayCall) => Promise<GatewayCall> },
): Promise<Started<T>> {
  const resume = await resumeStep(deps, bound);
  switch (resume.kind) {
    case 'new':
      return s.reserve();
    case 'in_flight':
      return { done: resume };
    case 'current':
      return { done: await s.current(resume.call) };
    case 'resend':
      return { call: s.resend ? await s.resend(resume.call) : resume.call };
  }
}

/**
 * The gateway did not answer: the call stays pending, what it reserved shows as pending,
 * and reconciliation proves it. Resolves with the call as it is now (someone may have
 * settled it meanwhile).
 */
export async function outcomeUnknown(deps: PaymentDeps, call: GatewayCall, error?: unknown): Promise<GatewayCall> {
  const marked = await markOutcomeUnknown(deps.database.db, call, deps.now());
  // An answer that contradicts its request (GatewayAttention) is never believed, nor asked
  // for again: a person, at once, rather than pending until the reconciliation's first look.
  if (marked && error instanceof GatewayAttention) {
    await toAttention(deps, marked, error.message);
    return (await getCall(deps.database.db, call.id))!;
  }
  if (marked) deps.log.warn({ call: call.id, kind: call.kind, reference: call.reference }, 'gateway call outcome unknown: pending until proven');
  return marked ?? (await getCall(deps.database.db, call.id))!;
}

/** A call nobody can prove, or whose answer cannot be believed: for a person, logged once. */
export async function toAttention(deps: PaymentDeps, call: GatewayCall, why: string): Promise<void> {
  if (await moveToAttention(deps.database.db, call.id, deps.now())) {
    deps.log.error({ call: call.id, kind: call.kind, reference: call.reference, subject: call.subject_id, gateway: call.gateway_id, why }, 'gateway call needs attention');
  }
}

export type Recorded<T> =
  | { kind: 'recorded'; value: T }
  /** The database could not be reached: the call stays pending, for reconciliation to record. */
  | { kind: 'kept_pending' }
  /** The database refused the result: the call is in `attention`, the money reversed at the gateway. */
  | { kind: 'attention' };

/**
 * Records a gateway's answer. If the database fails, tell the two cases apart: a
 * transient failure leaves the call pending (reconciliation records it later: a good
 * charge is never reversed for it); a deterministic one would fail every time, so the
 * call goes to `attention` for a person, logged once, and what the gateway did is reversed.
 */
export async function recordSafely<T>(deps: PaymentDeps, call: GatewayCall, settled: Settled, record: () => Promise<T>): Promise<Recorded<T>> {
  try {
    return { kind: 'recorded', value: await record() };
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    if (isDatabaseUnavailable(err)) {
      deps.log.warn({ call: call.id, kind: call.kind, error }, 'gateway result not recorded (database unavailable): left pending for reconciliation');
      return { kind: 'kept_pending' };
    }
    if (!(await moveToAttention(deps.database.db, call.id, deps.now()))) throw err;
    deps.log.error(
      { call: call.id, kind: call.kind, reference: call.reference, subject: call.subject_id, gateway: call.gateway_id, error },
      'gateway result refused by the database: call moved to attention',
    );
    const gateway = (await deps.gateways.of(call.environment_id)).find(call);
    if (settled.status === 'succeeded' && gateway) await reverseAtGateway(deps, gateway, call, settled.reference);
    return { kind: 'attention' };
  }
}

/**
 * Undoes at the gateway a payment or charge nobody can use (its result cannot be recorded,
 * or it was made for a transaction that moved on): a void of a hold, a refund of a
 * capture, with our reference `<call reference>_reversal`. true when the gateway did it.
 * A capture, refund or void is not undone: it is what the merchant asked for (each kind's
 * `reversal`, call-kinds.ts).
 */
export async function reverseAtGateway(deps: PaymentDeps, gateway: Gateway, call: GatewayCall, payment: string): Promise<boolean> {
  const reversal = CALL_KINDS[call.kind].reversal(call);
  if (!reversal) return false;
  const reverse = gateway[reversal];
  const answer = await askGateway(deps, gateway, (signal) =>
    reverse.call(gateway, { reference: `${call.reference}_reversal`, signal, payment, amount: call.amount }),
  );
  const done = answer.kind === 'answered' && answer.value.ok;
  deps.log.warn({ call: call.id, kind: call.kind, reversed: done }, 'gateway payment reversed');
  return done;
}
