import type { CheckoutView } from '../../widget/screen/view';
import type { Gateway } from '../payments/gateway';
import type { PaymentOutcome } from '../payments/pay';
import { returnUrls } from './returns';
import { type CheckoutContext, type Page, reload, stepUrl } from './page';

// What a post to the payment page comes to, before it is rendered (page-view.ts): a
// redirect, or the page again with a status and what to show on it.

export type Outcome =
  | { kind: 'redirect'; location: string; redirectKind: 'provider' | 'completed' | 'cancelled' | 'challenge'; status?: number }
  | {
      kind: 'view';
      status: number;
      error?: CheckoutView['error'];
      chosenGateway?: string | null;
      declined?: boolean;
      justFinished?: boolean;
      /** Seconds, sent as Retry-After (429). */
      retryAfter?: number;
      retryAt?: string;
      confirmCancel?: boolean;
      values?: Record<string, string>;
    };

/** What a view outcome adds to the page's view. */
export type ViewExtra = Omit<Extract<Outcome, { kind: 'view' }>, 'kind' | 'status'>;

export async function finished(ctx: CheckoutContext, page: Page, kind: 'completed' | 'cancelled'): Promise<Outcome> {
  const urls = await returnUrls(ctx.db, page.row, ctx.deps.now());
  const url = kind === 'completed' ? urls.return_url : urls.cancel_url;
  // In embed mode the frame shows the result and tells the merchant page, which moves the top window.
  if (url && !page.embed) return { kind: 'redirect', location: url, redirectKind: kind };
  return { kind: 'view', status: 200, justFinished: page.embed !== null };
}

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
    case 'paid':
      return finished(ctx, await reload(ctx, page), 'completed');
    case 'declined': {
      const message = outcome.reason === 'insufficient_funds' ? 'error.insufficientFunds' : 'error.declined';
      return { kind: 'view', status: 200, chosenGateway: gateway.id, declined: true, error: { message, fields: {} } };
    }
    case 'gateway_failed':
      // The gateway surely did nothing: the customer may simply try again.
      return { kind: 'view', status: 200, chosenGateway: gateway.id, error: { message: 'error.gatewayFailed', fields: {} } };
    case 'checking':
      // The outcome is unknown: the page says so, and takes no other payment until it is known.
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
