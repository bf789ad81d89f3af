import type { Gateway } from '../payments/gateway';
import type { PaymentOutcome } from '../payments/pay';
import { finishedHosted, type HostedOutcome } from './hosted-page';
import { type CheckoutContext, type Page, stepUrl } from './page';
import { paidPage, paymentPage, reload } from './page-view';

// What a post to the payment page comes to, before it is answered (hosted-page.ts): a
// redirect, or the page again with a status and what to show on it.

export type Outcome = HostedOutcome;

export const finished = (ctx: CheckoutContext, page: Page, how: 'completed' | 'cancelled'): Promise<Outcome> => finishedHosted(ctx, paymentPage, page, how);

/** 429: this payment (too many declines) or this card (tried too often) must wait. */
export function tooManyAttempts(now: Date, waitMs: number, chosenGateway: string): Outcome {
  const retryAt = new Date(now.getTime() + waitMs).toISOString();
  return { kind: 'view', status: 429, retryAfter: Math.max(1, Math.ceil(waitMs / 1000)), retryAt, chosenGateway, error: { message: 'error.tooManyAttempts', fields: {} } };
}

/** What the customer sees after the gateway's answer was recorded. */
export async function settled(ctx: CheckoutContext, page: Page, gateway: Gateway, outcome: Exclude<PaymentOutcome, { kind: 'not_claimed' }>): Promise<Outcome> {
  switch (outcome.kind) {
    case 'challenge':
      // Without JavaScript the challenge's own page; the hydrated screen shows it as a dialog.
      return { kind: 'redirect', location: stepUrl(page, `challenge/${outcome.challengeId}/`), redirectKind: 'challenge' };
    case 'redirect':
      // To the processor: a GET straight there; a POST through our page of its form (provider-routes.ts).
      return {
        kind: 'redirect',
        location: outcome.redirect.method === 'GET' ? outcome.redirect.url : stepUrl(page, `go/${outcome.reference}/`),
        redirectKind: 'provider',
      };
    case 'hosted_fields':
      // The processor's script in the page confirms the payment, then brings the customer to the call's return route.
      return { kind: 'confirm', secret: outcome.secret, location: outcome.returnUrl };
    case 'paid':
      return finished(ctx, outcome.recorded ? paidPage(page, outcome.recorded) : await reload(ctx, page), 'completed');
    case 'declined': {
      const message = outcome.reason === 'insufficient_funds' ? 'error.insufficientFunds' : 'error.declined';
      return { kind: 'view', status: 200, chosenGateway: gateway.id, declined: true, error: { message, fields: {} } };
    }
    case 'gateway_failed':
      // The gateway surely did nothing: the customer may simply try again.
      return { kind: 'view', status: 200, chosenGateway: gateway.id, error: { message: 'error.gatewayFailed', fields: {} } };
    case 'checking':
      // The outcome is unknown: the page says so, and takes no other payment until it is known.
      page.inDoubt = true;
      return { kind: 'view', status: 200, chosenGateway: gateway.id };
  }
}

/** The transaction moved on (paid, cancelled, expired) or another attempt is running. */
export async function stateConflict(ctx: CheckoutContext, page: Page, chosenGateway: string | null): Promise<Outcome> {
  const { row } = await reload(ctx, page);
  const pending = row.status === 'N' && Date.parse(row.expired_at) > ctx.deps.now().getTime();
  if (pending) return { kind: 'view', status: 409, chosenGateway, error: { message: 'error.inProgress', fields: {} } };
  return { kind: 'view', status: 409 };
}
