import type { Deps } from '../deps';
import type { AuthenticationRequired, Gateway, LookupResult, NotActed, SettledResult } from './gateway';

// Every gateway call goes through here: outside any database transaction, bounded by the
// configured timeout. It ends in one of three ways: answered; `not_acted` (the gateway
// says it surely did nothing); `unknown` (it threw or outlived the timeout: the gateway
// may or may not have acted, which only a lookup or a notification can tell, reconcile.ts).

/** What the use cases need from deps. */
export type PaymentDeps = Pick<Deps, 'config' | 'database' | 'gateways' | 'log' | 'now' | 'outbox'>;

export type Answer<T> =
  | { kind: 'answered'; value: Exclude<T, NotActed> }
  | { kind: 'not_acted'; reason: string }
  | { kind: 'unknown'; error: unknown };

const notActed = (value: unknown): value is NotActed =>
  typeof value === 'object' && value !== null && (value as { outcome?: unknown }).outcome === 'not_acted';

class GatewayTimeout extends Error {
  constructor(ms: number) {
    super(`the gateway did not answer within ${ms} ms`);
  }
}

export async function askGateway<T>(
  deps: Pick<Deps, 'config' | 'log'>,
  gateway: Pick<Gateway, 'code'>,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<Answer<T>> {
  const ms = deps.config.gatewayTimeoutMs;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<Answer<T>>((resolve) => {
    timer = setTimeout(() => {
      const error = new GatewayTimeout(ms);
      controller.abort(error);
      resolve({ kind: 'unknown', error });
    }, ms);
  });
  const asked = call(controller.signal).then(
    (value): Answer<T> => (notActed(value) ? { kind: 'not_acted', reason: value.reason } : { kind: 'answered', value: value as Exclude<T, NotActed> }),
    (error: unknown): Answer<T> => ({ kind: 'unknown', error }),
  );
  const answer = await Promise.race([asked, timedOut]);
  clearTimeout(timer);
  if (answer.kind === 'unknown') deps.log.warn({ err: answer.error, gateway: gateway.code }, 'gateway call outcome unknown');
  if (answer.kind === 'not_acted') deps.log.warn({ reason: answer.reason, gateway: gateway.code }, 'gateway did not act');
  return answer;
}

/** What a gateway did, for a use case to record: a lookup's answer without "not found". */
export type Settled = Exclude<LookupResult, { status: 'not_found' }>;

/** A saved card's charge as answered, in the shape a lookup would have told it: so the live answer and a reconciliation record alike. */
export function chargeSettled(r: SettledResult | AuthenticationRequired): Settled {
  if (r.outcome === 'authentication_required') return { status: 'failed', reason: 'declined', card: r.card, confirm: r.processorId };
  return r.outcome === 'approved' ? { status: 'succeeded', reference: r.reference, card: r.card } : { status: 'failed', reason: r.outcome, card: r.card };
}
