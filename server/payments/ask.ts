import type { Deps } from '../deps';
import type { Gateway, LookupResult } from './gateway';

// Every gateway call goes through here: outside any database transaction, bounded by the
// configured timeout. A call that throws or outlives the timeout has no answer ("lost"):
// the gateway may or may not have acted, which only its lookup can tell (reconcile.ts).

/** What the use cases need from deps. */
export type PaymentDeps = Pick<Deps, 'config' | 'database' | 'gateways' | 'log' | 'now' | 'outbox'>;

export type Answer<T> = { kind: 'answered'; value: T } | { kind: 'lost'; error: unknown };

export class GatewayTimeout extends Error {
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
      resolve({ kind: 'lost', error });
    }, ms);
  });
  const asked = call(controller.signal).then(
    (value): Answer<T> => ({ kind: 'answered', value }),
    (error: unknown): Answer<T> => ({ kind: 'lost', error }),
  );
  const answer = await Promise.race([asked, timedOut]);
  clearTimeout(timer);
  if (answer.kind === 'lost') deps.log.warn({ err: answer.error, gateway: gateway.code }, 'gateway call lost');
  return answer;
}

/** A lost answer because time ran out: ours, or the gateway client's own (a TimeoutError). */
export const timedOut = (answer: Answer<unknown>) =>
  answer.kind === 'lost' && (answer.error instanceof GatewayTimeout || (answer.error instanceof Error && answer.error.name === 'TimeoutError'));

/** What a gateway did, for a use case to record: a lookup's answer without "not found". */
export type Settled = Exclude<LookupResult, { status: 'not_found' }>;
